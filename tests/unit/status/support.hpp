#pragma once
// Test helpers: run the real binary, temporary trees, field-by-field JSON diff.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace rdnafix::test {

struct RunResult {
	int exit_code = -1;
	std::string out; // stdout
	std::string err; // stderr
};
// Runs RDNACTL_PATH with `args` (no shell: argv passed as is).
// `prefix` is prepended to the command line (e.g. setpriv to drop root).
RunResult run_rdnactl(const std::vector<std::string> &args, const std::vector<std::string> &extra_env = {},
		      const std::vector<std::string> &prefix = {});
// argv that runs a program as uid/gid 65534 (nobody) with no supplementary
// groups, when this process is root and setpriv exists; empty otherwise.
std::vector<std::string> drop_root_prefix();

// A fresh directory under $TMPDIR, removed (recursively, permissions restored) at scope end.
class TempDir {
public:
	TempDir();
	~TempDir();
	TempDir(const TempDir &) = delete;
	TempDir &operator=(const TempDir &) = delete;
	const std::filesystem::path &path() const { return p_; }
	// Writes `content` to path()/rel, creating parents.
	void write(const std::string &rel, const std::string &content) const;

private:
	std::filesystem::path p_;
};

// Every difference between `expected` and `actual` as "json/pointer: expected X, got Y".
// Keys listed in `ignore` (JSON pointers) are skipped.
std::vector<std::string> json_diff(const nlohmann::json &expected, const nlohmann::json &actual,
				   const std::vector<std::string> &ignore = {});

std::string read_file(const std::filesystem::path &p);

} // namespace rdnafix::test
