#pragma once
// Internal to the scan: where installations are found, by reading files only
// (io::RootFs, so --root works on a captured tree).  No subprocess, no import.
//   find_libs.cpp    the table of library files that can carry device code, and
//                    one installation directory's libraries
//   find_python.cpp  interpreters -> site-packages -> PyTorch, _rocm_sdk_* wheels
//   find_rocm.cpp    ROCM_PATH, /opt/rocm*, distribution multiarch, consumers
// The fatbin libraries found here are not read yet (Library::file empty);
// scan.cpp reads them.
#include "software/model.hpp"
#include "software/scan.hpp"

#include "machine/snapshot.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::io {
class RootFs;
}

namespace rdnafix::coverage::detail {

// One row of the device-code table: library files whose name starts with
// `stem` (then ".so", ".so.N..." or, with variants, "<suffix>.so...").
struct DeviceCodeLib {
	std::string_view stem; // "librocblas"
	bool variants;         // libMIOpenCKGroupedConv_gfx1100.so
	std::string_view why;  // what device code it carries
};
const std::vector<DeviceCodeLib> &device_code_libs();
// Pure: does this file name belong to a row of the table (nullptr if not)?
const DeviceCodeLib *device_code_lib(std::string_view file_name);

// What the scan accumulates while it looks.
struct Found {
	std::vector<Install> installs;
	std::vector<std::string> searched;
	std::vector<std::string> notes;
	std::map<std::string, bool> seen; // canonical library / directory paths already taken
};

// Root-relative path helpers: rel_of("/usr/./lib/../lib64/") -> "usr/lib64" (".."
// stops at the root, as in io::RootFs); join; dirname; basename.
std::string rel_of(std::string_view abs);
std::string join(std::string_view a, std::string_view b);
std::string dirname_of(std::string_view rel);
std::string basename_of(std::string_view rel);

// The canonical path of the candidate file `rel` when it is a regular file;
// else nullopt and a note "/rel: skipped: <why>" (a FIFO, a device node, a
// symlink loop, a dangling symlink).  Only stat()s: a FIFO or device node is
// never opened.
std::optional<std::string> regular_candidate(io::RootFs &fs, Found &f, const std::string &rel);
// "a FIFO", "a character device node", "a directory", ... (with an article).
std::string_view file_type_phrase(core::FileType t);

// The device-code libraries in directory `dir` (one level), as unread fatbin
// Libraries, each file once (symlinked names folded onto their target);
// `skip` drops rows by stem (consumers are their own installation).
std::vector<Library> libraries_in(io::RootFs &fs, Found &f, const std::string &dir,
				  const std::vector<std::string_view> &skip = {});
// The per-target data directories below an installation: lib/rocblas/library,
// lib/hipblaslt/library, share/miopen/db (those that exist).
void add_data_dirs(io::RootFs &fs, Found &f, Install &inst, const std::string &lib_dir, const std::string &share_dir);

void find_python(io::RootFs &fs, const machine::Environment &env, const std::vector<std::string> &pythons, Found &f);
void find_rocm(io::RootFs &fs, const machine::Environment &env, Found &f);
void find_consumers(io::RootFs &fs, Found &f);
// A PATH argument: a file (read whatever its name) or a directory (its
// device-code libraries and data directories, a few levels down).
void find_argument(io::RootFs &fs, const std::string &path, Found &f);

} // namespace rdnafix::coverage::detail
