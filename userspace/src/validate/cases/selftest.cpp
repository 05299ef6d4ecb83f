// The selftest kind: hidden cases (only by --case) that test rdnactl itself
// without a GPU.  selftest.pass / selftest.fail run a CPU conv2d judged like
// a GPU one; the others make the case child crash, abort, hang, ignore
// SIGTERM, write garbage, exit silently, write a result far over the cap,
// write text that is not UTF-8, or write one marked fault line to the kernel
// log, so that the isolation and kernel-log capture are tested end to end.
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <thread>

#include <fcntl.h>

#include <fmt/format.h>

#include "cases/kinds.hpp"
#include "io/fs_error.hpp"
#include "io/child_runner.hpp"
#include "io/unique_fd.hpp"

namespace rdnafix::validate {

namespace {

[[noreturn]] void sleep_forever()
{
	for (;;)
		std::this_thread::sleep_for(std::chrono::seconds(1));
}

// Writes one clearly marked fault-status line to the kernel log (needs root).
CaseResult write_kmsg_line(const CaseDef &c)
{
	CaseResult r;
	r.name = c.name;
	const io::unique_fd fd(::open("/dev/kmsg", O_WRONLY | O_CLOEXEC));
	if (!fd) {
		r.status = Status::skip;
		r.reason = fmt::format("cannot write /dev/kmsg: {}", io::errno_text(errno));
		return r;
	}
	io::write_all(fd.get(), "rdnactl selftest, not a real fault: "
				"GCVM_L2_PROTECTION_FAULT_STATUS:0x00701031\n");
	r.status = Status::pass;
	return r;
}

} // namespace

std::vector<CaseDef> selftest_cases()
{
	std::vector<CaseDef> v;
	for (const char *st : {"pass", "fail", "segv", "abort", "hang", "hang-ignore-term", "garbage", "silent-exit",
			       "kmsg", "big-result", "non-utf8"}) {
		CaseDef c;
		c.name = fmt::format("selftest.{}", st);
		c.kind = CaseKind::selftest;
		c.origin = "rdnactl's own isolation/checker test (no GPU)";
		c.hidden = true;
		ConvShape &sh = c.shape; // n2 c8 13x11 -> k6 3x3 s1 p1
		sh.n = 2, sh.c = 8, sh.h = 13, sh.w = 11, sh.k = 6, sh.r = 3, sh.s = 3;
		sh.pad_h = sh.pad_w = 1;
		v.push_back(c);
	}
	return v;
}

CaseResult cpu_conv_selfcheck(const CaseDef &c, bool inject)
{
	const auto &sh = c.shape;
	const auto in = conv2d_inputs(c);
	const auto &x = in.x, &w = in.w;
	const auto t0 = std::chrono::steady_clock::now();
	// float accumulation, filter-major order: a different order and precision than the reference
	std::vector<float> y(sh.y_elems());
	const int cpg = sh.c / sh.groups, kpg = sh.k / sh.groups, P = sh.p(), Q = sh.q();
	for (int n = 0; n < sh.n; ++n)
		for (int k = 0; k < sh.k; ++k)
			for (int p = 0; p < P; ++p)
				for (int q = 0; q < Q; ++q) {
					float acc = 0;
					for (int fr = 0; fr < sh.r; ++fr)
						for (int fs = 0; fs < sh.s; ++fs)
							for (int ci = 0; ci < cpg; ++ci) {
								const int ih =
									p * sh.stride_h - sh.pad_h + fr * sh.dil_h;
								const int iw =
									q * sh.stride_w - sh.pad_w + fs * sh.dil_w;
								if (ih < 0 || ih >= sh.h || iw < 0 || iw >= sh.w)
									continue;
								const int ic = (k / kpg) * cpg + ci;
								acc = std::fma(x[((std::size_t(n) * sh.c + ic) * sh.h +
										  ih) * sh.w +
										 iw],
									       w[((std::size_t(k) * cpg + ci) * sh.r +
										  fr) * sh.s +
										 fs],
									       acc);
							}
					y[((std::size_t(n) * sh.k + k) * P + p) * Q + q] = acc;
				}
	const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	if (inject)
		inject_error(y);
	const auto j = judge_conv2d(c, x, w, y);
	CaseResult r = j.result;
	r.gflops = secs > 0 ? sh.flops() / secs / 1e9 : 0;
	r.details = {{"shape", sh.describe()},
		     {"dtype", dtype_name(c.dtype)},
		     {"backend", "cpu (selftest)"},
		     {"worst_bound_ratio", j.metrics.worst_bound_ratio},
		     {"injected_error", inject}};
	return r;
}

int selftest_child_main(const CaseDef &c, bool inject_error)
{
	const std::string what = c.name.substr(c.name.find('.') + 1);
	if (what == "segv")
		std::raise(SIGSEGV);
	if (what == "abort")
		std::abort();
	if (what == "hang")
		sleep_forever();
	if (what == "hang-ignore-term") {
		std::signal(SIGTERM, SIG_IGN);
		sleep_forever();
	}
	if (what == "garbage") {
		io::write_all(io::kResultFd, "{\"status\": \"pass\", this is not JSON");
		return 0;
	}
	if (what == "silent-exit")
		return 3;
	if (what == "big-result") { // 32 MiB of result that never ends a reply, then no end at all
		const std::string chunk(1 << 16, '[');
		for (int i = 0; i < 512; ++i)
			if (!io::write_all(io::kResultFd, chunk))
				return 1;
		sleep_forever();
	}
	if (what == "non-utf8") { // bytes a runtime may print or report: not UTF-8
		std::fputs("output \xff\xfe not UTF-8, cut inside \xe2\x82", stderr);
		CaseResult r;
		r.name = c.name;
		r.status = Status::fail;
		r.reason = "a reason with \xc3\x28 invalid bytes \xff";
		send_reply(r);
		return 0;
	}
	CaseResult r = what == "kmsg" ? write_kmsg_line(c) : cpu_conv_selfcheck(c, inject_error || what == "fail");
	r.name = c.name;
	send_reply(r);
	return 0;
}

} // namespace rdnafix::validate
