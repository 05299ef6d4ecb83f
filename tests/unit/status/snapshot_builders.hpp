#pragma once
// Hand-built snapshots shared by the decision tests (findings, remedies).
#include "machine/snapshot.hpp"

#include <memory>
#include <optional>
#include <string>

namespace rdnafix::test {

// An amdgpu-bound AMD GPU with the given target, generation ("rdna1", ...) and KFD indices.
machine::Device amd(std::string bdf, std::string gfx, std::string gen, bool apu,
		    std::optional<int> kfd_node = std::nullopt, std::optional<int> index = std::nullopt);
// amdgpu loaded and live, subject user alice, /dev/kfd 0666 root:render; no devices.
machine::Snapshot base();
// The environment section built from KEY=VALUE lines, as `--env FILE` does.
void set_env(machine::Snapshot &s, const std::string &text);
// The built-in variables table (knowledge/builtin, no overlays), loaded once.
std::shared_ptr<const core::VarTable> builtin_variables();

} // namespace rdnafix::test
