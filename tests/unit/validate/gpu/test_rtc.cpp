// Run-time compilation guards: comgr target pre-check, compile in a forked
// child (abort / segfault / hang become errors), output validation, and the
// code-object cache (keying, hit, corrupt entry).  A fake hiprtc+comgr
// library stands in for the compiler (the real one: tests/rocm/run.sh).
#include <catch2/catch_test_macros.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "code_object.hpp"
#include "gpu_cases.hpp"
#include "test_util.hpp"

using namespace rdnafix::gpu;

namespace {
bool has(const std::string &text, const std::string &what)
{
	return text.find(what) != std::string::npos;
}

ProbeResult fake_probe()
{
	ProbeResult p;
	p.api = Api::hip;
	p.state = ProbeState::runtime_no_device;
	p.rtc_path = FAKE_HIPRTC_LIB;
	p.comgr_path = FAKE_HIPRTC_LIB;
	p.runtime_version = 60443484;
	return p;
}

std::unique_ptr<Rtc> fake_rtc()
{
	std::string why;
	auto r = load_rtc(fake_probe(), SearchConfig{}, &why);
	INFO(why);
	REQUIRE(r);
	return r;
}

CompileRequest req(const std::string &target)
{
	CompileRequest q;
	q.source = "extern \"C\" __global__ void k1() {}\nextern \"C\" __global__ void k2() {}\n";
	q.kernel_names = {"k1", "k2"};
	q.target = target;
	return q;
}

std::string compile_error(Rtc &rtc, const CompileRequest &q)
{
	try {
		rtc.compile(q);
	} catch (const GpuError &e) {
		return e.what();
	}
	return "";
}

struct Mode {
	explicit Mode(const char *m) { setenv("FAKE_HIPRTC_MODE", m, 1); }
	~Mode() { unsetenv("FAKE_HIPRTC_MODE"); }
};
} // namespace

TEST_CASE("hiprtc is not used when comgr is missing (it would segfault)")
{
	ProbeResult p = fake_probe();
	p.comgr_path.clear();
	std::string why;
	CHECK_FALSE(load_rtc(p, SearchConfig{}, &why));
	CHECK(has(why, "comgr"));
	CHECK(has(why, "crashes without it"));
}

TEST_CASE("targets come from comgr; an unknown target is refused before hiprtc runs")
{
	Mode m("abort"); // if hiprtc were called, the child would abort instead
	auto rtc = fake_rtc();
	CHECK(rtc->supported_targets() == std::vector<std::string>{"gfx1030", "gfx1100"});
	std::string e = compile_error(*rtc, req("gfx9999"));
	CHECK(has(e, "target 'gfx9999' is not known to comgr"));
	CHECK(has(e, "gfx1030 gfx1100"));
	// feature suffixes are checked on the processor name
	CHECK(has(compile_error(*rtc, req("gfx1030:xnack-")), "SIGABRT"));
}

TEST_CASE("a compiler that aborts, segfaults or hangs is an error, not our crash")
{
	auto rtc = fake_rtc();
	{
		Mode m("abort");
		CHECK(has(compile_error(*rtc, req("gfx1030")), "compiler crashed: SIGABRT"));
	}
	{
		Mode m("segv");
		CHECK(has(compile_error(*rtc, req("gfx1030")), "compiler crashed: SIGSEGV"));
	}
	{
		Mode m("hang");
		rtc->set_fork_timeout_s(1);
		CHECK(has(compile_error(*rtc, req("gfx1030")), "did not finish within 1 s"));
	}
}

TEST_CASE("a compile error carries the compiler's code and log")
{
	Mode m("error");
	auto rtc = fake_rtc();
	try {
		rtc->compile(req("gfx1100"));
		FAIL("no error");
	} catch (const GpuError &e) {
		CHECK(e.code() == 6);
		CHECK(has(e.text(), "HIPRTC_ERROR_COMPILATION"));
		CHECK(has(e.text(), "fake compile error"));
		CHECK(has(e.call(), "gfx1100"));
	}
}

TEST_CASE("compiler output that is not an AMDGPU ELF is rejected and not cached")
{
	Mode m("ok"); // fake returns 16 bytes of 0x42
	gputest::TempDir cache;
	auto rtc = fake_rtc();
	rtc->set_cache_dir(cache.path);
	CHECK(has(compile_error(*rtc, req("gfx1030")), "bad code object: not an ELF64 image (16 bytes)"));
	CHECK(std::filesystem::is_empty(cache.path));
}

TEST_CASE("code-object cache: a valid entry is used without compiling; a bad one is not")
{
	Mode m("abort"); // any real compile attempt fails loudly
	gputest::TempDir cache;
	auto rtc = fake_rtc();
	rtc->set_cache_dir(cache.path);
	CompileRequest q = req("gfx1030");
	std::string file = cache.path + "/hip-gfx1030-" + compile_cache_key(Api::hip, q, rtc->version()) + ".co";
	auto good = gputest::make_elf(kEmAmdgpu, {"k1", "k2", "k1.kd"});
	std::ofstream(file, std::ios::binary)
		.write(reinterpret_cast<const char *>(good.data()), std::streamsize(good.size()));
	CompileResult r = rtc->compile(q);
	CHECK(r.from_cache);
	CHECK(r.code == good);
	CHECK(r.cache_file == file);

	// Another target does not hit this entry.
	CHECK(has(compile_error(*rtc, req("gfx1100")), "SIGABRT"));

	// An entry of the wrong machine (or missing a kernel) is ignored.
	auto wrong = gputest::make_elf(kEmCuda, {"k1", "k2"});
	std::ofstream(file, std::ios::binary | std::ios::trunc)
		.write(reinterpret_cast<const char *>(wrong.data()), std::streamsize(wrong.size()));
	CHECK(has(compile_error(*rtc, q), "SIGABRT"));
	auto partial = gputest::make_elf(kEmAmdgpu, {"k1"});
	std::ofstream(file, std::ios::binary | std::ios::trunc)
		.write(reinterpret_cast<const char *>(partial.data()), std::streamsize(partial.size()));
	CHECK(has(compile_error(*rtc, q), "SIGABRT"));
}

TEST_CASE("cache key depends on source, target, options, kernels and runtime version")
{
	CompileRequest a = req("gfx1030");
	std::string k = compile_cache_key(Api::hip, a, "hip-60443484");
	CHECK(k.size() == 32);
	CHECK(k.find_first_not_of("0123456789abcdef") == std::string::npos);
	CHECK(k == compile_cache_key(Api::hip, a, "hip-60443484")); // stable
	CHECK(k != compile_cache_key(Api::cuda, a, "hip-60443484"));
	CHECK(k != compile_cache_key(Api::hip, a, "hip-60443485"));
	CompileRequest b = a;
	b.source += " ";
	CHECK(k != compile_cache_key(Api::hip, b, "hip-60443484"));
	b = a;
	b.target = "gfx1031";
	CHECK(k != compile_cache_key(Api::hip, b, "hip-60443484"));
	b = a;
	b.options = {"-O3"};
	CHECK(k != compile_cache_key(Api::hip, b, "hip-60443484"));
	b = a;
	b.kernel_names.push_back("k3");
	CHECK(k != compile_cache_key(Api::hip, b, "hip-60443484"));
	// field boundaries matter: moving text between fields changes the key
	CompileRequest c1 = a, c2 = a;
	c1.source = "ab";
	c1.target = "c";
	c2.source = "a";
	c2.target = "bc";
	CHECK(compile_cache_key(Api::hip, c1, "v") != compile_cache_key(Api::hip, c2, "v"));
}

TEST_CASE("cache directory: XDG_CACHE_HOME, else HOME/.cache, else none")
{
	CHECK(default_cache_dir("/xdg", "/home/u") == "/xdg/rdnafix/kernels");
	CHECK(default_cache_dir(nullptr, "/home/u") == "/home/u/.cache/rdnafix/kernels");
	CHECK(default_cache_dir("", "/home/u") == "/home/u/.cache/rdnafix/kernels");
	CHECK(default_cache_dir("relative", "/home/u") == "/home/u/.cache/rdnafix/kernels"); // XDG requires absolute
	CHECK(default_cache_dir(nullptr, nullptr).empty());
}
