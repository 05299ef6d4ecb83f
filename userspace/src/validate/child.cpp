#include "child.hpp"

#include <cerrno>
#include <cmath>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "compare.hpp"
#include "conv_ref.hpp"
#include "isolation.hpp"

namespace rdnafix::validate {

namespace {

void write_all(int fd, const std::string &s)
{
	std::size_t off = 0;
	while (off < s.size()) {
		const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		off += std::size_t(n);
	}
}

[[noreturn]] void sleep_forever()
{
	for (;;)
		std::this_thread::sleep_for(std::chrono::seconds(1));
}

} // namespace

CaseResult cpu_conv_selfcheck(const CaseDef &c, bool inject)
{
	const auto &sh = c.shape;
	const auto x = random_inputs(sh.x_elems(), seed_from_name(c.name + "/x"), c.dtype);
	const auto w = random_inputs(sh.w_elems(), seed_from_name(c.name + "/w"), c.dtype);
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
	const auto ref = conv2d_reference(sh, x, w);
	const auto tol = tolerance_for(c.dtype);
	const auto m = measure(ref.y, ref.absum, y, sh.reduction(), tol);
	const auto v = judge(m, tol);
	CaseResult r;
	r.name = c.name;
	r.status = v.pass ? Status::pass : Status::fail;
	r.reason = v.reason;
	r.max_abs = m.max_abs;
	r.max_rel = m.max_rel;
	r.rms_range = m.rms_range;
	r.gflops = secs > 0 ? sh.flops() / secs / 1e9 : 0;
	r.details = {{"shape", sh.describe()},
		     {"dtype", dtype_name(c.dtype)},
		     {"backend", "cpu (selftest)"},
		     {"worst_bound_ratio", m.worst_bound_ratio},
		     {"injected_error", inject}};
	return r;
}

int run_child_case(const CaseDef &c, const ChildOptions &opt)
{
	CaseResult r;
	r.name = c.name;
	if (c.kind == CaseKind::selftest) {
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
			write_all(kResultFd, "{\"status\": \"pass\", this is not JSON");
			return 0;
		}
		if (what == "silent-exit")
			return 3;
		if (what == "kmsg") {
			// Writes one clearly marked fault-status line to the kernel log so that the parent's
			// capture, classification and decoding can be tested end to end (needs root).
			r.name = c.name;
			const int fd = ::open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
			if (fd < 0) {
				r.status = Status::skip;
				r.reason = fmt::format("cannot write /dev/kmsg: {}", std::strerror(errno));
			} else {
				write_all(fd, "rdnactl selftest, not a real fault: "
					      "GCVM_L2_PROTECTION_FAULT_STATUS:0x00701031\n");
				::close(fd);
				r.status = Status::pass;
			}
			write_all(kResultFd, to_json(r).dump());
			return 0;
		}
		r = cpu_conv_selfcheck(c, opt.inject_error || what == "fail");
	} else {
		try {
			r = run_gpu_case(c, opt);
		} catch (const std::exception &e) {
			r.status = Status::error;
			r.reason = e.what();
		}
	}
	r.name = c.name;
	write_all(kResultFd, to_json(r).dump());
	return 0;
}

int run_child_probe(const std::string &api)
{
	write_all(kResultFd, run_gpu_probe(api).dump());
	return 0;
}

} // namespace rdnafix::validate
