// The pure functions over the variables table (env_vars.hpp); the rows
// themselves are data (userspace/data/knowledge/variables.toml).
#include "core/env_vars.hpp"

#include "core/parse.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fmt/format.h>

namespace rdnafix::core {

namespace {

constexpr std::array<std::string_view, 7> kStatusWords{"effective",       "debug-slow",          "no-effect-on-rocm",
						       "build-time-only", "not-a-real-variable", "deprecated",
						       "unverified"};

// "<digits>" as the runtime prints a node id with %d: no sign, no leading
// zeros, at most 2147483647.
bool node_suffix(std::string_view s)
{
	if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string_view::npos ||
	    (s.size() > 1 && s[0] == '0'))
		return false;
	unsigned long long v = 0;
	std::from_chars(s.data(), s.data() + s.size(), v);
	return v <= 2147483647ULL;
}

bool is_node_pattern(std::string_view n)
{
	return n.size() > 3 && n.substr(n.size() - 3) == "<N>";
}

bool is_prefix_pattern(std::string_view n)
{
	return !n.empty() && n.back() == '*';
}

// A row some program reads under exactly this name: a candidate for near_miss.
bool read_by_something(const VarEntry &e)
{
	return !is_node_pattern(e.name) && !is_prefix_pattern(e.name) && e.status != VarStatus::not_a_real_variable &&
	       e.status != VarStatus::unverified;
}

} // namespace

std::string_view var_status_word(VarStatus s)
{
	return kStatusWords.at(static_cast<std::size_t>(s));
}

const std::vector<VarStatus> &var_statuses()
{
	static const std::vector<VarStatus> all{VarStatus::effective,           VarStatus::debug_slow,
						VarStatus::no_effect_on_rocm,   VarStatus::build_time_only,
						VarStatus::not_a_real_variable, VarStatus::deprecated,
						VarStatus::unverified};
	return all;
}

std::optional<VarStatus> var_status_from_word(std::string_view w)
{
	for (VarStatus s : var_statuses())
		if (var_status_word(s) == w)
			return s;
	return std::nullopt;
}

const VarEntry *find_var(const VarTable &t, std::string_view name)
{
	const VarEntry *node = nullptr, *prefix = nullptr;
	for (const auto &e : t) {
		if (e.name == name)
			return &e;
		if (is_node_pattern(e.name)) {
			const std::string_view p = std::string_view(e.name).substr(0, e.name.size() - 3);
			if (name.starts_with(p) && node_suffix(name.substr(p.size())))
				node = &e;
		} else if (is_prefix_pattern(e.name)) {
			const std::string_view p = std::string_view(e.name).substr(0, e.name.size() - 1);
			if (name.starts_with(p) && (!prefix || prefix->name.size() < e.name.size()))
				prefix = &e;
		}
	}
	return node ? node : prefix;
}

bool looks_relevant(std::string_view name)
{
	static constexpr std::array<std::string_view, 17> prefixes{
		"HSA_",       "HIP_",     "ROCM",     "ROCR_",  "ROC_", "GPU_",    "CUDA_", "MIOPEN_", "ROCBLAS_",
		"HIPBLASLT_", "TENSILE_", "PYTORCH_", "TORCH_", "AMD_", "OLLAMA_", "GGML_", "HCC_"};
	return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return name.starts_with(p); });
}

bool is_slow(const VarEntry &e, std::string_view value)
{
	if (e.status != VarStatus::debug_slow || value.empty())
		return false;
	if (!e.slow_from)
		return value != "0";
	long long v = 0;
	const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
	return ec == std::errc{} && p == value.data() + value.size() && v >= *e.slow_from;
}

bool value_accepted(const VarEntry &e, std::string_view value)
{
	if (e.accepts.empty())
		return true;
	for (const auto &a : e.accepts) {
		if (a == value)
			return true;
		if (a == "<int>" && !value.empty()) {
			std::string_view digits = value[0] == '-' ? value.substr(1) : value;
			if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos)
				return true;
		}
	}
	return false;
}

std::string with_value(std::string_view text, std::string_view value)
{
	std::string out;
	for (std::size_t at = 0;;) {
		const std::size_t hit = text.find("{value}", at);
		out += text.substr(at, hit == std::string_view::npos ? std::string_view::npos : hit - at);
		if (hit == std::string_view::npos)
			return out;
		out += value;
		at = hit + 7;
	}
}

unsigned edit_distance(std::string_view a, std::string_view b)
{
	const std::size_t n = a.size(), m = b.size();
	std::vector<std::vector<unsigned>> d(n + 1, std::vector<unsigned>(m + 1));
	for (std::size_t i = 0; i <= n; ++i)
		d[i][0] = unsigned(i);
	for (std::size_t j = 0; j <= m; ++j)
		d[0][j] = unsigned(j);
	for (std::size_t i = 1; i <= n; ++i)
		for (std::size_t j = 1; j <= m; ++j) {
			unsigned cost = a[i - 1] == b[j - 1] ? 0 : 1;
			d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
		}
	return d[n][m];
}

std::optional<std::string> invalid_override_node(std::string_view name, const VarTable &t)
{
	constexpr std::string_view prefix = "HSA_OVERRIDE_GFX_VERSION_";
	// A valid node name, or one near_miss() names the real spelling of
	// ("_01" -> "_1", "_X" -> the plain name).
	if (name.size() < prefix.size() || name.substr(0, prefix.size()) != prefix || hsa_override_node(name) ||
	    near_miss(name, t))
		return std::nullopt;
	const std::string_view n = name.substr(prefix.size());
	const bool digits = !n.empty() && n.find_first_not_of("0123456789") == std::string_view::npos;
	const std::string why =
		n.empty() ? std::string("the node id is missing")
		: digits  ? fmt::format("node id {} is above 2147483647, the largest the runtime prints", n)
			  : fmt::format("'{}' is not a node id (decimal digits only, no sign)", n);
	return fmt::format("{}; valid: HSA_OVERRIDE_GFX_VERSION_<N> with N a KFD node id as the runtime prints it "
			   "with %d (0, 1, 2, ...; no sign, no leading zeros; the ids are the directories of "
			   "/sys/class/kfd/kfd/topology/nodes), or HSA_OVERRIDE_GFX_VERSION for every GPU",
			   why);
}

std::optional<std::string> near_miss(std::string_view name, const VarTable &t)
{
	// Longer than any known name plus the allowed distance: not a near miss
	// (also bounds the work on hostile input).
	if (name.size() < 6 || name.size() > 40 || find_var(t, name) || hsa_override_node(name).has_value())
		return std::nullopt;
	// HSA_OVERRIDE_GFX_VERSION_01: the runtime reads only the _%d spelling (_1).
	constexpr std::string_view prefix = "HSA_OVERRIDE_GFX_VERSION_";
	if (name.size() > prefix.size() + 1 && name.substr(0, prefix.size()) == prefix && name[prefix.size()] == '0') {
		std::string_view digits = name.substr(prefix.size());
		std::size_t z = digits.find_first_not_of('0');
		if (z == std::string_view::npos)
			return std::string(prefix) + "0";
		if (digits.substr(z).find_first_not_of("0123456789") == std::string_view::npos)
			if (auto n = hsa_override_node(std::string(prefix) + std::string(digits.substr(z))))
				return std::string(prefix) + std::to_string(*n);
	}
	std::string upper(name);
	for (char &c : upper)
		c = char(std::toupper(static_cast<unsigned char>(c)));
	const unsigned allowed = name.size() >= 12 ? 2 : 1;
	const VarEntry *best = nullptr;
	unsigned best_d = allowed + 1;
	for (const auto &k : t) {
		if (!read_by_something(k))
			continue;
		// The distance is at least the difference in length.
		const std::size_t diff =
			name.size() > k.name.size() ? name.size() - k.name.size() : k.name.size() - name.size();
		if (diff > allowed)
			continue;
		unsigned d = upper == k.name ? 0 : edit_distance(name, k.name);
		if (d < best_d) {
			best_d = d;
			best = &k;
		}
	}
	if (!best || best_d > allowed)
		return std::nullopt;
	return std::string(best->name);
}

const std::string_view kAllocConfSource =
	"pytorch/pytorch c10/cuda/CUDAAllocatorConfig.{h,cpp} (parseArgs, getKeys) and c10/core/AllocatorConfig.h "
	"(AcceleratorAllocatorConfig::getKeys), main 2025-2026; older releases reject keys they do not know with "
	"\"Unrecognized CachingAllocator option\"";

const std::vector<AllocKey> &alloc_conf_keys()
{
	// The union over PyTorch versions: a key one release lacks is still a
	// PyTorch key (the finding says that older releases may reject it).
	static const std::vector<AllocKey> t{
		{"max_split_size_mb", AllocValue::number},
		{"max_non_split_rounding_mb", AllocValue::number},
		{"garbage_collection_threshold", AllocValue::number},
		{"roundup_power2_divisions", AllocValue::divisions},
		{"expandable_segments", AllocValue::boolean},
		{"backend", AllocValue::backend},
		{"release_lock_on_cudamalloc", AllocValue::boolean},
		{"release_lock_on_hipmalloc", AllocValue::boolean},
		{"pinned_use_cuda_host_register", AllocValue::boolean},
		{"pinned_use_hip_host_register", AllocValue::boolean},
		{"pinned_num_register_threads", AllocValue::number},
		{"pinned_use_background_threads", AllocValue::boolean},
		{"pinned_reserve_segment_size_mb", AllocValue::number},
		{"graph_capture_record_stream_reuse", AllocValue::boolean},
		{"large_segment_size_mb", AllocValue::number},
		{"per_process_memory_fraction", AllocValue::number},
		{"pinned_free_catch_all", AllocValue::boolean},
		{"throw_on_cudamalloc_oom", AllocValue::boolean},
		{"throw_on_hipmalloc_oom", AllocValue::boolean},
		{"expandable_segments_reserve", AllocValue::text},
		{"expandable_segments_reserve_by_class", AllocValue::text},
	};
	return t;
}

const AllocKey *alloc_conf_key(std::string_view key)
{
	for (const auto &k : alloc_conf_keys())
		if (k.key == key)
			return &k;
	return nullptr;
}

} // namespace rdnafix::core
