#pragma once
// The software stack a validation ran on, as flat named facts, so that the
// history can say which run belongs to which stack and what changed between
// two stacks.  A fact that is absent was not there (module not loaded,
// variable unset, no PyTorch).  Names are stable (they are stored in the
// history database):
//   "kernel"                 the running kernel release
//   "amdgpu.<param>"         live amdgpu (and "ttm.<param>", "amdttm.<param>")
//                            parameters: the ones status reports, plus any
//                            set on the command line or in modprobe.d, less
//                            the root-only ones (is_stack_param)
//   "rdnafix.<param>"        /sys/module/rdnafix/parameters/*
//   "rdnafix.version"        the loaded rdnafix module's version
//   "hip"                    the HIP runtime library the validate loader would
//                            load, its version from the file on disk
//                            (libamdhip64.so.6 -> libamdhip64.so.6.2.41133:
//                            "6.2.41133"); "cuda", "nvrtc" likewise on an
//                            NVIDIA machine (libcuda.so.1, libnvrtc.so.12)
//   "torch"                  PyTorch's version ("2.5.1+rocm6.2") in the first
//                            interpreter the coverage scan finds; "torch.hip",
//                            "torch.cuda": the runtime it was built for
//   "env.<NAME>"             the environment variables that change what a
//                            validation run does (stack_env_names())
//   "gpu.<bdf>"              each AMD GPU: "gfx1031 1002:73df"
// Values come from the machine and are hostile: each is valid UTF-8 (bad
// bytes become U+FFFD) and at most kStackValueMax bytes; names are at most
// kStackNameMax bytes; at most kStackMaxFacts facts.
//
// stack.cpp is pure (key, JSON, diff); collect_stack.cpp reads files under the
// snapshot's root (no dlopen, no subprocess, no GPU).  Library
// rdnafix_validate_stack: status links it without the rest of validate.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "machine/snapshot.hpp"

namespace rdnafix::validate {

// JSON text read back from a history database, which another user may have
// written: text longer than kStoredJsonMaxBytes or nested deeper than
// kStoredJsonMaxDepth is discarded unparsed (a JSON null, as for text that is
// not JSON), so neither memory nor the parser's recursion follows the file.
inline constexpr std::size_t kStoredJsonMaxBytes = 256 * 1024;
inline constexpr int kStoredJsonMaxDepth = 32;
nlohmann::json parse_stored_json(std::string_view text);

inline constexpr std::size_t kStackNameMax = 128;
inline constexpr std::size_t kStackValueMax = 256;
inline constexpr std::size_t kStackMaxFacts = 512;

struct Stack {
	std::map<std::string, std::string> facts;

	// 16 lower-case hex digits (64-bit FNV-1a over the facts in name order,
	// with separators no name or value can contain): equal facts <=> equal key
	// (up to hash collisions).  The key of no facts is the key of "{}".
	std::string key() const;
	nlohmann::json to_json() const; // {"name": "value", ...}
	// Hostile input tolerated: anything that is not an object gives an empty
	// stack; members whose value is not a string are skipped; names and
	// values are made valid UTF-8 and capped as set() does.
	static Stack from_json(const nlohmann::json &j);
	// Parses stored text (the history's runs.stack column); damaged text, or
	// text parse_stored_json discards, gives an empty stack.
	static Stack from_text(std::string_view text);

	// Sets a fact after making name and value valid UTF-8 and capping them
	// (a cut value ends in "…"); ignores an empty name and any fact beyond
	// kStackMaxFacts.
	void set(std::string_view name, std::string_view value);
	// nullptr when absent.
	const std::string *get(const std::string &name) const;
	bool empty() const { return facts.empty(); }
	bool operator==(const Stack &o) const { return facts == o.facts; }
};

// One difference between two stacks: `from` absent = the fact was not there
// before (unset, not loaded); `to` absent = it is gone.
struct StackChange {
	std::string name;
	std::optional<std::string> from, to;
	bool operator==(const StackChange &o) const = default;
	// "kernel 6.12.57 → 6.12.63", "env.HSA_OVERRIDE_GFX_VERSION unset → 10.3.0",
	// "rdnafix.version 0.4.0 → absent" (terminal-safe).
	std::string describe() const;
};

// Most telling first (kernel, runtime libraries, PyTorch, rdnafix version,
// GPUs, environment, then module parameters), by name within each; equal
// stacks give no change.
std::vector<StackChange> diff_stacks(const Stack &before, const Stack &after);

// Whether module parameter `module`.`name` is part of the stack: not the
// amdgpu parameters the kernel registers root-only (vramlimit, gartsize,
// gttsize, moverate: mode 0600), which a validation run as a user cannot read
// and `status` as root can; the stack must not depend on who reads it.
bool is_stack_param(std::string_view module, std::string_view name);

// The environment variables that are part of the stack (see stack.cpp for why
// each one is, and why the others are not).
const std::vector<std::string_view> &stack_env_names();
bool is_stack_env(std::string_view name);

// What collect_stack looks at besides the snapshot.
struct StackOptions {
	// --python PATH of the coverage scan (else VIRTUAL_ENV, CONDA_PREFIX,
	// python3 on PATH, as coverage finds them).
	// The loader also searches $HIP_PATH, $CUDA_PATH and $CUDA_HOME of the
	// validating process; the snapshot does not keep them, and neither does
	// the stack, so that status and validate of one user agree.
	std::vector<std::string> pythons;
};

// The stack of the machine a Snapshot describes.  Reads only small files and
// directory listings under snap.root (torch/version.py, the runtime library
// links, /opt); no dlopen, no subprocess, no GPU: `status` and `validate` both
// call it, so a run and status agree on "this stack".  The amdgpu parameters
// are the snapshot's reported ones (Driver::params), never amdgpu_all_params,
// so a snapshot collected with or without CollectOptions::all_amdgpu_params
// gives the same stack.
Stack collect_stack(const machine::Snapshot &snap, const StackOptions &opts = {});

// Pure: the parts of collect_stack that need no file: kernel, parameters,
// rdnafix version, environment, GPUs.
Stack stack_of_snapshot(const machine::Snapshot &snap);

// Pure: the version a runtime library's resolved file name carries, given the
// name the loader asked for: ("libamdhip64.so.6", "libamdhip64.so.6.2.41133")
// -> "6.2.41133"; ("libcuda.so.1", "libcuda.so.1") -> "1"; a resolved name of
// another shape ("libamdhip64-custom.so") -> that file name.
std::string library_version(std::string_view soname, std::string_view resolved_name);

} // namespace rdnafix::validate
