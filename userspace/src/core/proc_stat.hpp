#pragma once
// /proc/<pid>/stat, the fields that say what kind of process it is
// (proc(5)): "pid (comm) state ppid pgrp session tty_nr tpgid flags ...".
// Pure (parse_env.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rdnafix::core {

struct ProcStat {
	std::string comm; // between the first '(' and the last ')'
	char state = '?'; // 'R', 'S', 'Z' (zombie: exited, not yet reaped) ...
	std::uint64_t flags = 0;
	bool kernel_thread() const { return (flags & 0x00200000u) != 0; } // PF_KTHREAD
};
std::optional<ProcStat> parse_proc_stat(std::string_view text);

} // namespace rdnafix::core
