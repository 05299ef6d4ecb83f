#pragma once
// Running a short external command and reading what it prints (an initramfs
// lister): argv only, no shell; stdout and stderr together; a time limit after
// which the command is killed.  The one such runner below validate/.
#include <string>
#include <vector>

namespace rdnafix::io {

struct CommandResult {
	bool started = false;    // false: could not be run (start_error says why, e.g. not found)
	std::string start_error; //
	int exit_code = -1;      // -1 when it did not exit normally
	bool timed_out = false;  // killed at the limit
	std::string output;      // stdout + stderr, at most `max_output` bytes (the first ones)
};

// Runs argv[0] (searched in PATH when it has no '/') with stdin from /dev/null.
CommandResult run_command(const std::vector<std::string> &argv, double timeout_s = 60,
			  std::size_t max_output = 16u << 20);

} // namespace rdnafix::io
