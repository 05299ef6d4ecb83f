// The environment-variable tables (env_vars.hpp): every row names the
// upstream file, version or issue it comes from.
#include "core/env_vars.hpp"

#include "core/parse.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace rdnafix::core {

namespace {

// ROCm/clr rocm-6.2.2, rocclr/utils/flags.hpp: the runtime reads exactly the
// flag names listed there (rocclr/utils/flags.cpp: Flag::init compares each
// environment name with them).
constexpr std::string_view kClrFlags = "ROCm/clr rocm-6.2.2 rocclr/utils/flags.hpp";
// ROCm/ROCR-Runtime src/core/util/flag.h: Flag::Refresh.
constexpr std::string_view kRocrFlags = "ROCm/ROCR-Runtime src/core/util/flag.h (Flag::Refresh)";

} // namespace

const std::vector<CopiedVar> &copied_vars()
{
	static const std::vector<CopiedVar> t{
		{"CUDA_LAUNCH_BLOCKING", CopiedKind::cuda_only,
		 "makes CUDA launches synchronous; the HIP runtime does not read it",
		 "AMD_SERIALIZE_KERNEL=3 (what PyTorch's ROCm build itself suggests) for one debugging run",
		 "ROCm/clr rocm-6.2.2 rocclr/utils/flags.hpp has HIP_LAUNCH_BLOCKING and AMD_SERIALIZE_KERNEL, no "
		 "CUDA_LAUNCH_BLOCKING; PyTorch on ROCm prints 'For debugging consider passing AMD_SERIALIZE_KERNEL=3' "
		 "(https://github.com/ROCm/TheRock/issues/2707)"},
		{"CUDA_DEVICE_ORDER", CopiedKind::cuda_only,
		 "orders CUDA devices (FASTEST_FIRST / PCI_BUS_ID); the HIP runtime does not read it",
		 "ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES select and order AMD GPUs",
		 "not a flag in ROCm/clr rocm-6.2.2 rocclr/utils/flags.hpp; documented in the CUDA programming guide, "
		 "https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/environment-variables.html"},
		{"TORCH_CUDA_ARCH_LIST", CopiedKind::cuda_only,
		 "selects the CUDA architectures torch.utils.cpp_extension compiles for; ROCm builds read "
		 "PYTORCH_ROCM_ARCH instead",
		 "", "pytorch/pytorch torch/utils/cpp_extension.py: _get_cuda_arch_flags vs _get_rocm_arch_flags"},
		{"PYTORCH_ROCM_ARCH", CopiedKind::build_only,
		 "selects the gfx targets PyTorch or a C++/HIP extension is compiled for; it adds no code to an "
		 "installed wheel",
		 "a wheel or library built for this GPU's target, or the ISA-safe HSA_OVERRIDE_GFX_VERSION",
		 "pytorch/pytorch torch/utils/cpp_extension.py: _get_rocm_arch_flags (\"Use same defaults as used for "
		 "building PyTorch\")"},
		{"TF_FORCE_GPU_ALLOW_GROWTH", CopiedKind::other_framework,
		 "TensorFlow's GPU allocator growth switch; PyTorch does not read it", "",
		 "tensorflow/tensorflow tensorflow/core/common_runtime/gpu/gpu_bfc_allocator.cc: GetAllowGrowthValue"},
	};
	return t;
}

const CopiedVar *copied_var(std::string_view name)
{
	for (const auto &c : copied_vars())
		if (c.name == name)
			return &c;
	return nullptr;
}

std::string_view to_string(CopiedKind k)
{
	switch (k) {
	case CopiedKind::cuda_only:
		return "CUDA only";
	case CopiedKind::other_framework:
		return "another framework";
	case CopiedKind::build_only:
		return "build time only";
	}
	return "";
}

const std::vector<KnownVar> &known_vars()
{
	static const std::vector<KnownVar> t{
		{"HSA_OVERRIDE_GFX_VERSION", "ROCm/ROCR-Runtime libhsakmt/src/topology.c (rocr-runtime 6.4.3)"},
		{"ROCR_VISIBLE_DEVICES", kRocrFlags},
		{"HSA_ENABLE_SDMA", kRocrFlags},
		{"HSA_ENABLE_PEER_SDMA", kRocrFlags},
		{"HSA_ENABLE_INTERRUPT", kRocrFlags},
		{"HSA_ENABLE_VM_FAULT_MESSAGE", kRocrFlags},
		{"HSA_ENABLE_QUEUE_FAULT_MESSAGE", kRocrFlags},
		{"HSA_XNACK", kRocrFlags},
		{"HSA_MAX_QUEUES", kRocrFlags},
		{"HSA_SCRATCH_MEM", kRocrFlags},
		{"HSA_TOOLS_LIB", kRocrFlags},
		{"HIP_VISIBLE_DEVICES", kClrFlags},
		{"CUDA_VISIBLE_DEVICES", kClrFlags},
		{"GPU_DEVICE_ORDINAL", kClrFlags},
		{"HIP_LAUNCH_BLOCKING", kClrFlags},
		{"AMD_SERIALIZE_KERNEL", kClrFlags},
		{"AMD_SERIALIZE_COPY", kClrFlags},
		{"AMD_LOG_LEVEL", kClrFlags},
		{"AMD_LOG_LEVEL_FILE", kClrFlags},
		{"AMD_LOG_MASK", kClrFlags},
		{"GPU_MAX_HW_QUEUES", kClrFlags},
		{"GPU_MAX_HEAP_SIZE", kClrFlags},
		{"GPU_SINGLE_ALLOC_PERCENT", kClrFlags},
		{"HIP_HOST_COHERENT", kClrFlags},
		{"ROC_ENABLE_PRE_VEGA", kClrFlags},
		{"ROCM_PATH", "ROCm docs, reference/env-variables.rst"},
		{"HIP_PLATFORM", "ROCm docs, reference/env-variables.rst"},
		{"HIP_PATH", "ROCm docs, reference/env-variables.rst"},
		{"PYTORCH_ALLOC_CONF", "pytorch/pytorch c10/cuda/CUDAAllocatorConfig.h: CUDAAllocatorConfig::instance"},
		{"PYTORCH_CUDA_ALLOC_CONF",
		 "pytorch/pytorch c10/cuda/CUDAAllocatorConfig.h: CUDAAllocatorConfig::instance"},
		{"PYTORCH_HIP_ALLOC_CONF",
		 "pytorch/pytorch c10/cuda/CUDAAllocatorConfig.h: CUDAAllocatorConfig::instance (USE_ROCM)"},
		{"PYTORCH_NO_CUDA_MEMORY_CACHING", "pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp"},
		{"PYTORCH_NO_HIP_MEMORY_CACHING", "https://github.com/pytorch/pytorch/issues/185826"},
		{"PYTORCH_ROCM_ARCH", "pytorch/pytorch torch/utils/cpp_extension.py: _get_rocm_arch_flags"},
		{"MIOPEN_USER_DB_PATH", "ROCm/MIOpen docs, using the find database (ROCm 6.4)"},
		{"MIOPEN_CUSTOM_CACHE_DIR", "ROCm/MIOpen docs, using the find database (ROCm 6.4)"},
		{"MIOPEN_SYSTEM_DB_PATH", "ROCm/MIOpen docs, using the find database (ROCm 6.4)"},
		{"MIOPEN_FIND_MODE", "ROCm/MIOpen docs, using the find database (ROCm 6.4)"},
	};
	return t;
}

const KnownVar *known_var(std::string_view name)
{
	for (const auto &k : known_vars())
		if (k.name == name)
			return &k;
	return nullptr;
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

std::optional<std::string> invalid_override_node(std::string_view name)
{
	constexpr std::string_view prefix = "HSA_OVERRIDE_GFX_VERSION_";
	// A valid node name, or one near_miss() names the real spelling of
	// ("_01" -> "_1", "_X" -> the plain name).
	if (name.size() < prefix.size() || name.substr(0, prefix.size()) != prefix || hsa_override_node(name) ||
	    near_miss(name))
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

std::optional<std::string> near_miss(std::string_view name)
{
	// Longer than any known name plus the allowed distance: not a near miss
	// (also bounds the work on hostile input).
	if (name.size() < 6 || name.size() > 40 || known_var(name) || copied_var(name) ||
	    hsa_override_node(name).has_value())
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
	const KnownVar *best = nullptr;
	unsigned best_d = allowed + 1;
	for (const auto &k : known_vars()) {
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
