#pragma once
// Test helpers: a Snapshot of a fixture root (roots/SOURCE.md) and small
// edits of it (an owned file that exists, an AMD GPU).
#include "machine/collect.hpp"

#include <catch2/catch_test_macros.hpp>

#include <string>

namespace rdnafix::test {

inline machine::Snapshot root_snapshot(const std::string &name)
{
	machine::CollectOptions o;
	o.root = std::string(RDNAFIX_CONFIG_ROOTS) + "/" + name;
	o.live = false;
	machine::Snapshot s = machine::collect(o);
	REQUIRE_FALSE(s.nothing_readable);
	return s;
}

// The owned file `path` exists with `content` (as after an earlier run).
inline void set_owned(machine::Snapshot &s, const std::string &path, const std::string &content)
{
	for (auto &f : s.boot.owned)
		if (f.path == path) {
			f.exists = true;
			f.content = content;
			return;
		}
	FAIL("not an owned path: " << path);
}

inline void add_amd_gpu(machine::Snapshot &s, const std::string &bdf, const std::string &gc)
{
	machine::Device d;
	d.pci_bdf = bdf;
	d.is_amd = true;
	d.driver = "amdgpu";
	d.gc_version = gc;
	s.devices.push_back(d);
}

} // namespace rdnafix::test
