// Matching: the lines of a log against the signatures of the catalogue,
// multi-line blocks grouped (amdgpu VM fault blocks through
// core/amdgpu_fault, hipErrorNoBinaryForGpu with its lists, resets, MES and
// firmware sequences), identical repeats folded.  Pure.
#include "explain/match_lines.hpp"

#include "core/parse.hpp"

#include <algorithm>

namespace rdnafix::explain {

namespace af = core::amdgpu_fault;

namespace {

constexpr std::size_t kExcerpt = 12; // lines kept per match
constexpr std::size_t kWindow = 12;  // a block continues over at most this many unrelated lines

// Lines that belong to an amdgpu VM fault block.
bool fault_part(std::string_view l)
{
	af::VmFault scratch;
	if (af::parse_page_fault_line(l, &scratch) || af::find_status(l) || af::parse_fault_address(l))
		return true;
	if (l.find("Faulty UTCL2 client ID") != std::string_view::npos)
		return true;
	for (std::string_view k : {"MORE_FAULTS:", "WALKER_ERROR:", "PERMISSION_FAULTS:", "MAPPING_ERROR:"})
		if (l.find(k) != std::string_view::npos)
			return true;
	if ((l.find("\t RW: 0x") != std::string_view::npos || l.find(" RW: 0x") != std::string_view::npos) &&
	    l.find("amdgpu") != std::string_view::npos)
		return true;
	if (l.find("_process_interrupt") != std::string_view::npos &&
	    l.find("callbacks suppressed") != std::string_view::npos)
		return true;
	return l.find("amdgpu") != std::string_view::npos && af::parse_process_line(l, &scratch);
}

void add_excerpt(Match &m, const LogLine &l)
{
	if (m.excerpt.size() < kExcerpt)
		m.excerpt.push_back(l.text);
	m.last_line = l.number;
}

Match start(Sig s, const LogLine &l)
{
	Match m;
	m.sig = s;
	m.first_line = m.last_line = l.number;
	m.excerpt.push_back(l.text);
	return m;
}

bool groupable(Sig s)
{
	return s == Sig::gpu_reset || s == Sig::mes_failure || s == Sig::firmware_load ||
	       s == Sig::hw_exception_gpu_hang || s == Sig::ring_timeout;
}

} // namespace

std::vector<Match> match_log(const Log &log)
{
	std::vector<Match> out;
	const auto &L = log.lines;
	for (std::size_t i = 0; i < L.size(); ++i) {
		const std::string_view t = L[i].text;
		// amdgpu VM fault block: the fault-part lines up to kWindow unrelated lines apart.
		if (fault_part(t) && t.find("callbacks suppressed") == std::string_view::npos) {
			std::vector<std::size_t> idx{i};
			std::size_t j = i + 1, gap = 0;
			for (; j < L.size() && gap <= 2; ++j) {
				if (fault_part(L[j].text)) {
					idx.push_back(j);
					gap = 0;
				} else {
					++gap;
				}
			}
			std::vector<std::string_view> lines;
			for (auto k : idx)
				lines.push_back(L[k].text);
			const auto faults = af::parse_vm_faults(lines);
			for (const auto &f : faults) {
				// a fault storm: the same process, VMID and status again -> counted, not repeated
				auto same = std::find_if(out.begin(), out.end(), [&](const Match &o) {
					return o.fault && o.fault->device == f.device && o.fault->pasid == f.pasid &&
					       o.fault->pid == f.pid && o.fault->vmid == f.vmid &&
					       (o.fault->status ? std::optional<std::uint32_t>(o.fault->status->raw)
								: std::nullopt) ==
						       (f.status ? std::optional<std::uint32_t>(f.status->raw)
								 : std::nullopt);
				});
				if (same != out.end()) {
					++same->count;
					continue;
				}
				Match m = start(Sig::vm_fault, L[i]);
				m.excerpt.clear();
				for (auto k : idx)
					add_excerpt(m, L[k]);
				m.device = f.device;
				m.address = f.address;
				m.fault = f;
				out.push_back(std::move(m));
			}
			i = idx.back();
			continue;
		}
		auto sig = classify(t);
		if (!sig)
			continue;
		if (*sig == Sig::no_binary_for_gpu) {
			Match m = start(*sig, L[i]);
			NoBinaryDecode d;
			std::size_t j = i + 1;
			int section = 0;
			for (; j < L.size() && parse_nobinary_line(L[j].text, &d, &section); ++j)
				add_excerpt(m, L[j]);
			finish_nobinary(&d);
			m.nobinary = std::move(d);
			i = j - 1;
			// AMD_LOG_LEVEL logs print it per library: fold identical decodes.
			auto same = std::find_if(out.begin(), out.end(), [&](const Match &o) {
				return o.sig == m.sig && o.nobinary && o.nobinary->devices == m.nobinary->devices &&
				       o.nobinary->bundled == m.nobinary->bundled;
			});
			if (same != out.end())
				++same->count;
			else
				out.push_back(std::move(m));
			continue;
		}
		Match m = start(*sig, L[i]);
		fill_facts(&m, t);
		if (*sig == Sig::ring_timeout && i + 1 < L.size() &&
		    L[i + 1].text.find("rocess") != std::string_view::npos && !classify(L[i + 1].text)) {
			add_excerpt(m, L[i + 1]);
			m.detail += " (" + std::string(core::trim(L[i + 1].text)) + ")";
			++i;
		}
		if (!out.empty() && groupable(*sig) && out.back().sig == *sig &&
		    m.first_line - out.back().last_line <= kWindow) {
			auto &b = out.back();
			add_excerpt(b, L[i]);
			if (*sig == Sig::hw_exception_gpu_hang || *sig == Sig::ring_timeout)
				++b.count;
			continue;
		}
		// identical single-line signatures anywhere in the log: one match, counted
		auto same = std::find_if(out.begin(), out.end(), [&](const Match &o) {
			return !groupable(*sig) && o.sig == m.sig && o.detail == m.detail && o.node == m.node &&
			       o.address == m.address;
		});
		if (same != out.end()) {
			++same->count;
			continue;
		}
		out.push_back(std::move(m));
	}
	return out;
}

} // namespace rdnafix::explain
