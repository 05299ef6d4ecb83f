// The stack a validation runs on (validate/stack.hpp): key, JSON with hostile
// input, differences, the facts of fixture snapshots, and the runtime
// libraries / PyTorch found on disk under a root.
#include <catch2/catch_test_macros.hpp>

#include <filesystem>
#include <fstream>

#include "../machine/tree.hpp"
#include "machine/collect.hpp"
#include "machine/facts.hpp"
#include "software/stack.hpp"

namespace fs = std::filesystem;
using namespace rdnafix::validate;

namespace {

rdnafix::machine::Snapshot collect_fixture(const std::string &name, bool all_params = false, bool env = true)
{
	const fs::path dir = fs::path(RDNAFIX_FIXTURES) / name;
	rdnafix::machine::CollectOptions o;
	o.root = (dir / "root").string();
	o.live = false;
	o.all_amdgpu_params = all_params;
	if (env && fs::exists(dir / "env"))
		o.env_file = (dir / "env").string();
	return rdnafix::machine::collect(o);
}

Stack of(std::initializer_list<std::pair<const char *, const char *>> facts)
{
	Stack s;
	for (const auto &[n, v] : facts)
		s.set(n, v);
	return s;
}

} // namespace

TEST_CASE("stack key: 16 hex digits, equal facts <=> equal key", "[stack]")
{
	const Stack a = of({{"kernel", "6.12.57"}, {"amdgpu.noretry", "1"}});
	const Stack b = of({{"amdgpu.noretry", "1"}, {"kernel", "6.12.57"}}); // other insertion order
	CHECK(a.key() == b.key());
	CHECK(a.key().size() == 16);
	CHECK(a.key().find_first_not_of("0123456789abcdef") == std::string::npos);
	CHECK(a.key() != of({{"kernel", "6.12.63"}, {"amdgpu.noretry", "1"}}).key());
	CHECK(a.key() != of({{"kernel", "6.12.57"}}).key());
	CHECK(Stack{}.key() != of({{"kernel", ""}}).key());
	// Where one fact ends and the next begins is part of the key.
	CHECK(of({{"ab", "c"}}).key() != of({{"a", "bc"}}).key());
	Stack nul, nul2;
	nul.set("a", std::string_view("b\0\0c", 4));
	nul2.set("a", std::string_view("b\0\1\0c", 5));
	CHECK(nul.key() != nul2.key());
}

TEST_CASE("stack JSON: round trip, and hostile input never throws", "[stack]")
{
	const Stack a = of({{"kernel", "6.12.57"}, {"env.HSA_OVERRIDE_GFX_VERSION", "10.3.0"}});
	CHECK(Stack::from_json(a.to_json()) == a);
	CHECK(Stack::from_text(a.to_json().dump()) == a);
	CHECK(a.to_json() == nlohmann::json{{"kernel", "6.12.57"}, {"env.HSA_OVERRIDE_GFX_VERSION", "10.3.0"}});

	CHECK(Stack::from_json(nlohmann::json::array({1, 2})).empty());
	CHECK(Stack::from_json(nullptr).empty());
	CHECK(Stack::from_text("{not json").empty());
	CHECK(Stack::from_text("").empty());
	CHECK(Stack::from_text("\"a string\"").empty());
	const Stack mixed = Stack::from_text(R"({"kernel": "6.1", "n": 3, "o": {"x": "y"}, "": "empty name"})");
	CHECK(mixed.facts == std::map<std::string, std::string>{{"kernel", "6.1"}});

	// Bytes that are not UTF-8 become U+FFFD; long values are cut with "…".
	Stack bad;
	bad.set("env.X", "a\xff");
	CHECK(*bad.get("env.X") == "a\xef\xbf\xbd");
	CHECK_NOTHROW(bad.to_json().dump());
	bad.set("long", std::string(10000, 'x'));
	CHECK(bad.get("long")->size() <= kStackValueMax);
	CHECK(bad.get("long")->ends_with("\xe2\x80\xa6"));
	bad.set(std::string(1000, 'n'), "v");
	for (const auto &[n, v] : bad.facts)
		CHECK(n.size() <= kStackNameMax);
	nlohmann::json many = nlohmann::json::object();
	for (int i = 0; i < 5000; ++i)
		many["f" + std::to_string(i)] = "v";
	CHECK(Stack::from_json(many).facts.size() == kStackMaxFacts);
}

TEST_CASE("diff_stacks: changed, added and removed facts, most telling first, and their words", "[stack]")
{
	const Stack before = of({{"kernel", "6.12.57"}, {"amdgpu.noretry", "0"}, {"rdnafix.version", "0.4.0"}});
	const Stack after =
		of({{"kernel", "6.12.63"}, {"amdgpu.noretry", "0"}, {"env.HSA_OVERRIDE_GFX_VERSION", "10.3.0"}});
	const auto d = diff_stacks(before, after);
	REQUIRE(d.size() == 3);
	// kernel, then rdnafix's version, then the environment (not name order)
	CHECK(d[0] == StackChange{"kernel", "6.12.57", "6.12.63"});
	CHECK(d[1] == StackChange{"rdnafix.version", "0.4.0", std::nullopt});
	CHECK(d[2] == StackChange{"env.HSA_OVERRIDE_GFX_VERSION", std::nullopt, "10.3.0"});
	CHECK(d[0].describe() == "kernel 6.12.57 \u2192 6.12.63");
	CHECK(d[1].describe() == "rdnafix.version 0.4.0 \u2192 absent");
	CHECK(d[2].describe() == "env.HSA_OVERRIDE_GFX_VERSION unset \u2192 10.3.0");
	// a new kernel's new amdgpu parameters come after the kernel; within a rank, by name
	const auto k = diff_stacks(of({{"kernel", "6.1"}, {"amdgpu.a", "1"}}),
				   of({{"kernel", "6.12"}, {"amdgpu.a", "2"}, {"amdgpu.b", "0"}, {"ttm.x", "1"}}));
	REQUIRE(k.size() == 4);
	CHECK(k[0].name == "kernel");
	CHECK(k[1].name == "amdgpu.a");
	CHECK(k[2].name == "amdgpu.b");
	CHECK(k[3].name == "ttm.x");
	CHECK(diff_stacks(before, before).empty());
	CHECK(diff_stacks(Stack{}, Stack{}).empty());
	// Terminal-hostile values are escaped in the words.
	CHECK(StackChange{"env.X", "a\x1b[2J", std::nullopt}.describe() == "env.X a\\e[2J \u2192 unset");
}

TEST_CASE("stack environment: the variables that change a run, not the ones that do nothing", "[stack]")
{
	CHECK(is_stack_env("HSA_OVERRIDE_GFX_VERSION"));
	CHECK(is_stack_env("HSA_OVERRIDE_GFX_VERSION_1"));
	CHECK(is_stack_env("CUDA_VISIBLE_DEVICES"));
	CHECK(is_stack_env("ROCR_VISIBLE_DEVICES"));
	CHECK(is_stack_env("PYTORCH_HIP_ALLOC_CONF"));
	CHECK_FALSE(is_stack_env("ROCM_PATH"));
	CHECK_FALSE(is_stack_env("AMD_LOG_LEVEL"));
	CHECK_FALSE(is_stack_env("TF_FORCE_GPU_ALLOW_GROWTH"));
	CHECK_FALSE(is_stack_env("HSA_OVERRIDE_GFX_VERSON"));
}

TEST_CASE("stack of a fixture snapshot: kernel, parameters, rdnafix, environment, GPUs", "[stack]")
{
	const auto snap = collect_fixture("rdnafix-loaded");
	const Stack s = collect_stack(snap);
	REQUIRE(s.get("kernel"));
	CHECK(*s.get("kernel") == snap.driver.kernel_release);
	REQUIRE(s.get("amdgpu.noretry"));
	REQUIRE(snap.rdnafix.version);
	CHECK(*s.get("rdnafix.version") == *snap.rdnafix.version);
	for (const auto &[n, v] : snap.rdnafix.params)
		CHECK(*s.get("rdnafix." + n) == v);
	int gpus = 0;
	for (const auto &d : snap.devices)
		if (d.is_amd) {
			INFO(d.pci_bdf);
			REQUIRE(s.get("gpu." + d.pci_bdf));
			CHECK(*s.get("gpu." + d.pci_bdf) == *d.gfx_target + " " + rdnafix::machine::pci_id(d));
			++gpus;
		}
	CHECK(gpus >= 1);
	// status collects without every amdgpu parameter, validate with: one stack.
	CHECK(collect_stack(collect_fixture("rdnafix-loaded", true)) == s);
	// A root-only parameter (mode 0600: root's status reads it, a user's
	// validate cannot) is not part of the stack.
	auto user_view = snap;
	bool root_only_seen = false;
	for (auto &p : user_view.driver.params)
		if (p.module == "amdgpu" && p.name == "gttsize" && p.live_value) {
			root_only_seen = true;
			p.live_value.reset();
			p.root_only = true;
		}
	CHECK(root_only_seen);
	CHECK_FALSE(s.get("amdgpu.gttsize"));
	CHECK(collect_stack(user_view) == s);

	// The environment: the override is part of the stack, ROCM_PATH is not.
	const auto torch = collect_fixture("strix-halo-torch-native");
	REQUIRE(torch.environment.vars.count("HSA_OVERRIDE_GFX_VERSION"));
	const Stack t = collect_stack(torch);
	REQUIRE(t.get("env.HSA_OVERRIDE_GFX_VERSION"));
	CHECK(*t.get("env.HSA_OVERRIDE_GFX_VERSION") == "11.0.0");
	for (const auto &[n, v] : t.facts)
		if (n.starts_with("env."))
			CHECK(is_stack_env(n.substr(4)));
	// PyTorch of the conda environment the coverage scan finds (CONDA_PREFIX).
	REQUIRE(t.get("torch"));
	CHECK(*t.get("torch") == "2.9.0+rocm7.0");
	CHECK(*t.get("torch.hip") == "7.0.0");
	CHECK_FALSE(t.get("torch.cuda")); // cuda: Optional[str] = None
	// Without its environment there is no interpreter to follow, and no override.
	const Stack bare = collect_stack(collect_fixture("strix-halo-torch-native", false, false));
	CHECK_FALSE(bare.get("torch"));
	CHECK_FALSE(bare.get("env.HSA_OVERRIDE_GFX_VERSION"));
	CHECK(diff_stacks(bare, t).size() >= 3);
}

TEST_CASE("library_version: the version of the resolved runtime file", "[stack]")
{
	CHECK(library_version("libamdhip64.so.6", "libamdhip64.so.6.2.41133") == "6.2.41133");
	CHECK(library_version("libcuda.so.1", "libcuda.so.550.54.15") == "550.54.15");
	CHECK(library_version("libcuda.so.1", "libcuda.so.1") == "1");
	CHECK(library_version("libamdhip64.so", "libamdhip64.so") == "libamdhip64.so");
	CHECK(library_version("libamdhip64.so.6", "libamdhip64-custom.so") == "libamdhip64-custom.so");
}

#ifdef RDNAFIX_HAVE_GPU_BACKEND
TEST_CASE("stack runtimes: the HIP, CUDA and NVRTC files the loader would load, by their names", "[stack]")
{
	rdnafix::test::Tree t;
	t.write("proc/sys/kernel/osrelease", "6.12.57\n");
	t.write("opt/rocm-6.2.0/lib/libamdhip64.so.6.2.41133", "ELF");
	fs::create_symlink("libamdhip64.so.6.2.41133", t.root() / "opt/rocm-6.2.0/lib/libamdhip64.so.6");
	Stack s = collect_stack(t.collect());
	CHECK(*s.get("hip") == "6.2.41133");
	CHECK_FALSE(s.get("cuda"));
	// A newer /opt/rocm-* comes first, as in the loader; /opt/rocm before both.
	t.write("opt/rocm-6.4.1/lib/libamdhip64.so.6.4.43482", "ELF");
	fs::create_symlink("libamdhip64.so.6.4.43482", t.root() / "opt/rocm-6.4.1/lib/libamdhip64.so.6");
	CHECK(*collect_stack(t.collect()).get("hip") == "6.4.43482");
	t.mkdir("opt");
	fs::create_symlink("rocm-6.2.0", t.root() / "opt/rocm");
	CHECK(*collect_stack(t.collect()).get("hip") == "6.2.41133");
	// A dangling link is no library.
	t.mkdir("opt/rocm-7.0.0/lib");
	fs::create_symlink("missing.so.7", t.root() / "opt/rocm-7.0.0/lib/libamdhip64.so.7");
	CHECK(*collect_stack(t.collect()).get("hip") == "6.2.41133");

	// CUDA: the driver library in the multiarch directory, NVRTC of /usr/local/cuda.
	t.write("usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "ELF");
	fs::create_symlink("libcuda.so.550.54.15", t.root() / "usr/lib/x86_64-linux-gnu/libcuda.so.1");
	t.write("usr/local/cuda/lib64/libnvrtc.so.12.4.127", "ELF");
	fs::create_symlink("libnvrtc.so.12.4.127", t.root() / "usr/local/cuda/lib64/libnvrtc.so.12");
	s = collect_stack(t.collect());
	CHECK(*s.get("cuda") == "550.54.15");
	CHECK(*s.get("nvrtc") == "12.4.127");
}
#endif
