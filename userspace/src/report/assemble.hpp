#pragma once
// The files of a report and its MANIFEST (assemble.cpp): the captured tree,
// the environment, status.json, versions.txt, with the personal values
// replaced.  No I/O: everything read comes in through Parts.
#include "machine/capture.hpp"
#include "machine/snapshot.hpp"

#include "io/archive_write.hpp"

#include "software/picture.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdnafix::report {

// The top directory of every report archive.
inline constexpr const char *kTop = "rdnafix-report";

struct Parts {
	machine::Capture tree;
	std::string env;         // KEY=VALUE lines: the environment audited
	std::string env_source;  // "this process", "pid 4242", "--env FILE"
	std::string args;        // one line of rdnactl arguments for the replay ("--user alice")
	std::string status_json; // rdnactl status --json
	std::string versions;    // versions.txt
	std::string created;     // "2026-11-29T00:10:00Z"
	std::string root;        // "/" or the --root DIR
	// What names a person on this machine (read besides the tree):
	std::vector<std::pair<std::string, std::string>> users; // name, home
	std::vector<std::string> hosts;
	bool anonymize = true;
};

// The archive's entries, MANIFEST first.
std::vector<io::ArchiveEntry> assemble(const Parts &parts);

// versions.txt: kernel, amdgpu DRM, firmware, rdnafix, and the software stack
// and installations (ROCm, PyTorch, MIOpen, rocBLAS, llama.cpp/ollama) that
// status and coverage found.
std::string versions_text(const machine::Snapshot &snap, const software::Picture &sw);

} // namespace rdnafix::report
