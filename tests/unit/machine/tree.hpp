#pragma once
// A root file system built in a temporary directory for one test: files with
// content, modification times set with utimensat (git keeps no mtimes), and
// machine::collect over it.  Removed at scope end.
#include "machine/collect.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace rdnafix::test {

class Tree {
public:
	Tree()
	{
		std::string t = (std::filesystem::temp_directory_path() / "rdnafix-tree-XXXXXX").string();
		if (!mkdtemp(t.data()))
			throw std::runtime_error("mkdtemp failed");
		root_ = t;
	}
	~Tree()
	{
		std::error_code ec;
		std::filesystem::remove_all(root_, ec);
	}
	Tree(const Tree &) = delete;
	Tree &operator=(const Tree &) = delete;

	const std::filesystem::path &root() const { return root_; }
	// Writes root/rel (parents created); `mtime_s` set when not 0.
	void write(const std::string &rel, const std::string &content, std::int64_t mtime_s = 0) const
	{
		auto p = root_ / rel;
		std::filesystem::create_directories(p.parent_path());
		std::ofstream(p, std::ios::binary) << content;
		if (mtime_s)
			touch(rel, mtime_s);
	}
	void touch(const std::string &rel, std::int64_t mtime_s) const
	{
		struct timespec ts[2] = {{mtime_s, 0}, {mtime_s, 0}};
		if (utimensat(AT_FDCWD, (root_ / rel).c_str(), ts, 0) != 0)
			throw std::runtime_error("utimensat failed on " + rel);
	}
	void mkdir(const std::string &rel) const { std::filesystem::create_directories(root_ / rel); }
	machine::Snapshot collect() const
	{
		machine::CollectOptions o;
		o.root = root_.string();
		o.live = false;
		o.user = "root";
		return machine::collect(o);
	}

private:
	std::filesystem::path root_;
};

} // namespace rdnafix::test
