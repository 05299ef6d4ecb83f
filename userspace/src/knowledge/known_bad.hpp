#pragma once
// Known-bad versions as data (known-bad.toml; docs/knowledge.md, "Known-bad
// versions"): firmware, kernel, DRM, ROCm and PyTorch version ranges with a
// known failure on these GPUs, matched against a map of facts.  Pure.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::knowledge {

// Which version an entry is about: it picks the finding (RDNA-VER-001..005).
enum class VersionKind { firmware, kernel, drm, rocm, pytorch };
std::string_view word(VersionKind k); // "firmware", "kernel", "drm", "rocm", "pytorch"

// "drm < 3.64": a fact, an operator and a value.
struct VersionCondition {
	enum class Op { lt, le, gt, ge, eq, ne };
	std::string fact; // "drm", "kernel", "firmware.mes", "rocm", "pytorch", "env.expandable_segments"
	Op op = Op::eq;
	std::string value;
	std::string text; // as written
};

struct KnownBad {
	std::string id; // "mes-0x83-gfx115x"
	VersionKind kind = VersionKind::firmware;
	bool error = false; // severity: error, else warning
	std::string title;
	std::vector<std::string> gfx;       // the GPU targets it concerns (any); empty: every AMD GPU
	std::vector<VersionCondition> when; // all must hold
	std::string symptom, workaround;    // prose
	std::vector<std::string> sources;   // upstream references
	std::string file;                   // where it was read
	std::size_t line = 0;
};

// Parses "fact op value" (op one of < <= > >= = !=); the error names what is wrong.
bool parse_condition(std::string_view text, VersionCondition *out, std::string *error);

// The facts a condition is checked against: "drm" -> "3.61.0", "kernel" ->
// "6.12.48", "firmware.mes" -> "0x00000083", "rocm" -> "6.4.1", "pytorch" ->
// "2.7.0", "env.expandable_segments" -> "true".  A fact known only within
// bounds is given as "<fact>.min" / "<fact>.max" (a DRM version derived from
// the kernel release): `<` and `<=` hold when the maximum satisfies them,
// `>` and `>=` when the minimum does.  A fact that is absent never holds.
using Facts = std::map<std::string, std::string>;
bool holds(const VersionCondition &c, const Facts &facts);

// The entries whose GPU list contains `gfx` (or is empty) and whose
// conditions all hold, in table order.
std::vector<const KnownBad *> match_known_bad(const std::vector<KnownBad> &table, const Facts &facts,
					      std::string_view gfx);

} // namespace rdnafix::knowledge
