// The line-level recognisers of the signatures: which signature a line
// shows, and the facts in it.  Pure.
#include "explain/match_lines.hpp"

#include "core/parse.hpp"

#include <algorithm>
#include <cctype>

namespace rdnafix::explain {

namespace {

bool has(std::string_view hay, std::string_view needle)
{
	return hay.find(needle) != std::string_view::npos;
}

bool has_icase(std::string_view hay, std::string_view needle)
{
	auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
		return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
	});
	return it != hay.end();
}

// "node-4" -> 4
std::optional<unsigned> node_of(std::string_view l)
{
	const auto at = l.find("GPU node-");
	if (at == std::string_view::npos)
		return std::nullopt;
	std::size_t b = at + 9, e = b;
	while (e < l.size() && e - b < 6 && std::isdigit(static_cast<unsigned char>(l[e])))
		++e;
	if (e == b)
		return std::nullopt;
	const auto v = core::parse_u64(l.substr(b, e - b));
	return v ? std::optional<unsigned>(unsigned(*v)) : std::nullopt;
}

// The word after `key` up to a delimiter.
std::string word_after(std::string_view l, std::string_view key, std::string_view stops = " ,\"")
{
	const auto at = l.find(key);
	if (at == std::string_view::npos)
		return "";
	const std::string_view rest = l.substr(at + key.size());
	return std::string(rest.substr(0, rest.find_first_of(stops)));
}

} // namespace

std::optional<Sig> classify(std::string_view l)
{
	// PyTorch's hint under every HIP error ("Search for `hipErrorInvalidValue'
	// in https://docs.nvidia.com/... for more information.") repeats the
	// error's name: it is part of the error above it, not a second one.
	if (l.starts_with("Search for `hip"))
		return std::nullopt;
	if (has(l, "hipErrorNoBinaryForGpu") || has(l, "Unable to find code object for all current devices") ||
	    has(l, "find binary for current devices") || has(l, "no kernel image is available for execution"))
		return Sig::no_binary_for_gpu;
	if (has_icase(l, "invalid device function") || has(l, "hipErrorInvalidDeviceFunction"))
		return Sig::invalid_device_function;
	if (has(l, "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION"))
		return Sig::aperture_violation;
	if (has(l, "HSA_STATUS_ERROR_MEMORY_FAULT"))
		return Sig::hsa_memory_fault;
	if (has(l, "Memory access fault by GPU node-"))
		return Sig::kfd_memory_access_fault;
	if (has(l, "HW Exception by GPU node-"))
		return Sig::hw_exception_gpu_hang;
	if (has(l, "amdgpu.ids: No such file"))
		return Sig::amdgpu_ids_missing;
	if (has(l, "HIP out of memory") || has(l, "hipErrorOutOfMemory"))
		return Sig::out_of_memory;
	if (has(l, "No HIP GPUs are available") || has(l, "hipErrorNoDevice"))
		return Sig::no_gpu_visible;
	if (has_icase(l, "HIP error: invalid argument") || has(l, "hipErrorInvalidValue"))
		return Sig::invalid_argument;
	if (has(l, "MES failed to respond") || has(l, "MES failed to response") ||
	    has(l, "failed to remove hardware queue from MES") || has(l, "MES might be in unrecoverable state"))
		return Sig::mes_failure;
	if ((has(l, "Direct firmware load for amdgpu/") && has(l, "failed")) ||
	    (has(l, "amdgpu") && has_icase(l, "failed to load") && has(l, "firmware")) ||
	    has(l, "Fatal error during GPU init"))
		return Sig::firmware_load;
	if (has(l, "ring ") && has(l, " timeout") && !has(l, "uses VM inv") &&
	    (has(l, "amdgpu") || has(l, "signaled seq")))
		return Sig::ring_timeout;
	if (has(l, "amdgpu") || has(l, "[drm]")) {
		for (std::string_view k :
		     {"GPU reset begin", "GPU reset(", "GPU reset succeeded", "GPU recovery", "device wedged",
		      "VRAM is lost", "MODE1 reset", "MODE2 reset", "BACO reset", "ASIC reset", "GPU reset failed"})
			if (has(l, k))
				return Sig::gpu_reset;
	}
	return std::nullopt;
}

void fill_facts(Match *m, std::string_view l)
{
	m->device = core::amdgpu_fault::device_of(l);
	switch (m->sig) {
	case Sig::kfd_memory_access_fault:
		m->node = node_of(l);
		m->address = core::amdgpu_fault::hex_after(l, "on address 0x");
		if (const auto r = l.find("Reason: "); r != std::string_view::npos)
			m->detail = std::string(core::trim(l.substr(r + 8)));
		break;
	case Sig::hw_exception_gpu_hang:
		m->node = node_of(l);
		if (const auto r = l.find("reason :"); r != std::string_view::npos)
			m->detail = std::string(core::trim(l.substr(r + 8)));
		break;
	case Sig::ring_timeout:
		m->detail = word_after(l, "ring ");
		break;
	case Sig::mes_failure:
		m->detail = word_after(l, "msg=");
		break;
	case Sig::firmware_load: {
		const auto at = l.find("amdgpu/");
		if (at != std::string_view::npos)
			m->detail = word_after(l.substr(at), "", " ,\"");
		break;
	}
	case Sig::amdgpu_ids_missing:
		m->detail = std::string(core::trim(l.substr(0, l.find(": No such file"))));
		break;
	default:
		break;
	}
}

std::string target_of(std::string_view s)
{
	const auto at = s.find("amdgcn-amd-amdhsa-");
	if (at == std::string_view::npos)
		return "";
	std::string_view rest = s.substr(at + 18);
	while (!rest.empty() && rest.front() == '-')
		rest.remove_prefix(1);
	rest = rest.substr(0, rest.find_first_of(" \t]"));
	if (!rest.starts_with("gfx"))
		return "";
	return std::string(rest);
}

bool parse_nobinary_line(std::string_view line, NoBinaryDecode *d, int *section_state)
{
	const std::string_view t = core::trim(line);
	int &section = *section_state;
	if (t == "Devices:") {
		section = 1;
		return true;
	}
	if (t == "Bundled Code Objects:") {
		section = 2;
		return true;
	}
	if (section == 0)
		return false;
	if (t.starts_with("host-") && section == 2)
		return true;
	const std::string target = target_of(t);
	if (target.empty()) {
		section = 0;
		return false;
	}
	// A real list names a few dozen targets; a longer one is read, not kept.
	constexpr std::size_t kMaxTargets = 256;
	if (section == 1) {
		if (d->devices.size() >= kMaxTargets)
			return true;
		d->devices.push_back(target);
		if (has(t, "[Not Found]"))
			d->missing.push_back(target);
	} else if (d->bundled.size() < kMaxTargets) {
		d->bundled.push_back(target);
	}
	return true;
}

void finish_nobinary(NoBinaryDecode *d)
{
	// a device whose processor no bundled object names lacks code even when not marked
	for (const auto &dev : d->devices) {
		const std::string proc = dev.substr(0, dev.find(':'));
		const bool found = std::any_of(d->bundled.begin(), d->bundled.end(),
					       [&](const std::string &b) { return b.substr(0, b.find(':')) == proc; });
		if (!found && std::find(d->missing.begin(), d->missing.end(), dev) == d->missing.end())
			d->missing.push_back(dev);
	}
}

} // namespace rdnafix::explain
