#pragma once
// The rdnafix-loaded fixture as the validation tests use it (test_validation.cpp,
// test_validation_hostile.cpp): its path, the snapshot `status --root ROOT --env
// <fixture>/env --user grace` collects, and a copy of its root without root's
// own history database.
#include "support.hpp"

#include "machine/collect.hpp"

#include <filesystem>

namespace rdnafix::test {

inline const std::filesystem::path kValidationFixture = std::filesystem::path(RDNAFIX_FIXTURES) / "rdnafix-loaded";

inline machine::Snapshot validation_fixture_snapshot(const std::filesystem::path &root)
{
	machine::CollectOptions o;
	o.root = root.string();
	o.live = false;
	o.env_file = (kValidationFixture / "env").string();
	o.user = "grace";
	return machine::collect(o);
}

// A copy of the fixture's root in t, without its history database.
inline std::filesystem::path copy_validation_root(const TempDir &t)
{
	namespace fs = std::filesystem;
	fs::copy(kValidationFixture / "root", t.path() / "root",
		 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
	fs::remove(t.path() / "root/var/lib/rdnafix/history.db");
	return t.path() / "root";
}

} // namespace rdnafix::test
