// The stream kind: BabelStream-style copy and triad in fp64 against a
// device-to-device memcpy; the GPU checks every element (gpu/stream.cpp),
// the judge here decides.
#include <fmt/format.h>

#include "cases/kinds.hpp"

namespace rdnafix::validate {

std::vector<CaseDef> stream_cases()
{
	CaseDef c;
	c.name = "stream.copy-triad";
	c.kind = CaseKind::stream;
	c.origin = "BabelStream-style copy and triad (fp64), checked against analytic values, vs device memcpy";
	c.quick = true;
	return {c};
}

std::size_t stream_elements(std::uint64_t free_bytes, std::uint64_t total_bytes)
{
	// three fp64 arrays; at most 2^25 elements (768 MiB in all), at most 1/8 of free memory
	std::size_t n = std::size_t(1) << 25;
	while (n > (std::size_t(1) << 16) && 3 * 8 * n > (free_bytes ? free_bytes : total_bytes) / 8)
		n /= 2;
	return n;
}

CaseResult judge_stream(const CaseDef &c, const gpu::StreamResult &sr)
{
	CaseResult r;
	r.name = c.name;
	r.status = sr.bad_elements == 0 ? Status::pass : Status::fail;
	if (sr.bad_elements)
		r.reason = fmt::format("{} of {} elements differ from the analytic values (max abs error {:.3g})",
				       sr.bad_elements, sr.elements, sr.max_abs_error);
	r.max_abs = sr.max_abs_error;
	r.gbs = sr.triad.gbs;
	return r;
}

} // namespace rdnafix::validate
