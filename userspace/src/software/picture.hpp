#pragma once
// The installed-software picture of one run, filled once beside the machine
// picture (machine::Snapshot) and read by every verb that judges software:
//   coverage  which installed libraries carry GPU code for which GPU (scan.hpp)
//   stack     the versions a validation run is keyed by (stack.hpp)
//   libload   what the dynamic loader would load for the GPU libraries (libload.hpp)
// Reads files only through io::RootFs under the snapshot's root: no dlopen,
// no subprocess, no GPU.
#include "software/libload.hpp"
#include "software/scan.hpp"
#include "software/stack.hpp"

#include "machine/snapshot.hpp"

#include <optional>
#include <string>

namespace rdnafix::software {

struct PictureOptions {
	bool coverage = true; // false: --no-coverage (no library is read)
	coverage::ScanOptions scan;
	bool stack = true;
	validate::StackOptions stack_options;
	bool libload = true; // the library-load check (libload.hpp)
};

struct Picture {
	std::optional<coverage::Report> coverage; // nullopt: not scanned
	std::optional<validate::Stack> stack;     // nullopt: not collected, or stack_error
	std::string stack_error;                  // why the stack could not be collected
	std::optional<libload::Report> libload;   // nullopt: not checked
};

// No library is scanned when the snapshot found nothing readable; the stack
// is then the snapshot's part of it (validate::collect_stack).
Picture collect(const machine::Snapshot &snap, const PictureOptions &opts);

} // namespace rdnafix::software
