// Run-time compilation: hiprtc (+ comgr target check, compiled in a child
// forked by io::run_in_fork) and NVRTC, with an on-disk code-object cache.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "code_object.hpp"
#include "io/child_runner.hpp"
#include "io/unique_fd.hpp"
#include "loader.hpp"

namespace rdnafix::gpu {

// ---------------------------------------------------------------- cache key / dir
namespace {

std::uint64_t fnv1a(std::uint64_t h, const std::string &s)
{
	for (unsigned char c : s) {
		h ^= c;
		h *= 0x100000001b3ULL;
	}
	h ^= 0xff; // field separator
	h *= 0x100000001b3ULL;
	return h;
}

std::string sanitize(const std::string &s)
{
	std::string o;
	for (char c : s)
		o += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
	return o;
}

} // namespace

std::string compile_cache_key(Api api, const CompileRequest &req, const std::string &runtime_version)
{
	// Two FNV-1a-64 lanes with different bases: 128 bits, not cryptographic
	// (the cache is the user's own directory).
	std::uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
	std::vector<std::string> fields = {"rdnafix-co-v1", api_name(api), req.source, req.target, runtime_version};
	for (const auto &o : req.options)
		fields.push_back(o);
	for (const auto &k : req.kernel_names)
		fields.push_back("k:" + k);
	for (const auto &f : fields) {
		a = fnv1a(a, f);
		b = fnv1a(b, f + "#");
	}
	char buf[33];
	snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a),
		 static_cast<unsigned long long>(b));
	return buf;
}

std::string default_cache_dir(const char *xdg_cache_home, const char *home)
{
	if (xdg_cache_home && xdg_cache_home[0] == '/')
		return std::string(xdg_cache_home) + "/rdnafix/kernels";
	if (home && home[0] == '/')
		return std::string(home) + "/.cache/rdnafix/kernels";
	return "";
}

namespace {

std::string cache_path(const std::string &dir, Api api, const CompileRequest &req, const std::string &ver)
{
	return dir + "/" + (api == Api::hip ? "hip-" : "cuda-") + sanitize(req.target) + "-" +
	       compile_cache_key(api, req, ver) + ".co";
}

bool read_cached(const std::string &path, Api api, const CompileRequest &req, std::vector<std::uint8_t> &out)
{
	std::ifstream f(path, std::ios::binary);
	if (!f)
		return false;
	std::vector<std::uint8_t> data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
	if (!check_code_object(api, data, req.kernel_names).empty())
		return false; // corrupt or truncated: recompile and overwrite
	out = std::move(data);
	return true;
}

void write_cached(const std::string &path, const std::vector<std::uint8_t> &code)
{
	namespace fs = std::filesystem;
	std::error_code ec;
	fs::create_directories(fs::path(path).parent_path(), ec);
	std::string tmp = path + ".tmp." + std::to_string(getpid());
	io::unique_fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
	if (!fd)
		return; // cache is best effort
	bool ok = io::write_all(fd.get(), std::string_view(reinterpret_cast<const char *>(code.data()), code.size()));
	ok = ok && fsync(fd.get()) == 0;
	ok = (::close(fd.release()) == 0) && ok;
	if (!ok || rename(tmp.c_str(), path.c_str()) != 0)
		unlink(tmp.c_str());
}

// ---------------------------------------------------------------- the compile child
// What a compile returns: through io::run_in_fork for hiprtc, directly for NVRTC.
struct CompileOutput {
	int status = 0; // 0 ok, else compiler error code
	std::string log;
	std::vector<std::uint8_t> code;
};

// Serialised as: i32 status | u64 loglen | log | u64 codelen | code.
std::string encode(const CompileOutput &o)
{
	std::string b;
	auto put = [&b](const void *p, std::size_t n) { b.append(static_cast<const char *>(p), n); };
	const std::uint64_t l = o.log.size(), c = o.code.size();
	const std::int32_t s = o.status;
	put(&s, sizeof s);
	put(&l, sizeof l);
	put(o.log.data(), l);
	put(&c, sizeof c);
	put(o.code.data(), c);
	return b;
}

bool decode(const std::string &buf, CompileOutput &o)
{
	size_t p = 0;
	auto take = [&](void *dst, size_t n) {
		if (buf.size() - p < n)
			return false;
		std::memcpy(dst, buf.data() + p, n);
		p += n;
		return true;
	};
	std::int32_t s;
	std::uint64_t l, c;
	if (!take(&s, sizeof s) || !take(&l, sizeof l) || buf.size() - p < l)
		return false;
	o.status = s;
	o.log.assign(buf.data() + p, l);
	p += l;
	if (!take(&c, sizeof c) || buf.size() - p != c)
		return false;
	o.code.assign(buf.begin() + std::ptrdiff_t(p), buf.end());
	return true;
}

std::string signal_text(int sig)
{
	const char *n = sigabbrev_np(sig);
	return n ? std::string("SIG") + n : "signal " + std::to_string(sig);
}

// Runs `fn` in a forked child; the child's crash, abort or hang becomes a GpuError.
CompileOutput compile_in_fork(const std::string &what, int timeout_s, const std::function<CompileOutput()> &fn)
{
	const io::ChildOutcome o = io::run_in_fork(timeout_s, [&] { return encode(fn()); });
	if (!o.started)
		throw GpuError(what, -1, o.start_error);
	if (o.timed_out)
		throw GpuError(what, -1, "compiler did not finish within " + std::to_string(timeout_s) + " s (killed)");
	if (o.signaled)
		throw GpuError(what, -1,
			       "compiler crashed: " + signal_text(o.signal) +
				       " (the run-time compiler died in its child process)");
	CompileOutput out;
	if (!o.exited || o.exit_code != 0 || !decode(o.result, out))
		throw GpuError(what, -1,
			       "compiler child exited abnormally (status " +
				       std::to_string(o.exited ? o.exit_code << 8 : 0) + ")");
	return out;
}

// ---------------------------------------------------------------- hiprtc
using rtcResult = int;
struct RtcTable {
	rtcResult (*create)(void **, const char *, const char *, int, const char **, const char **);
	rtcResult (*compile)(void *, int, const char **);
	rtcResult (*log_size)(void *, size_t *);
	rtcResult (*log)(void *, char *);
	rtcResult (*code_size)(void *, size_t *);
	rtcResult (*code)(void *, char *);
	rtcResult (*destroy)(void **);
	const char *(*error_string)(rtcResult);
};

CompileOutput rtc_compile(const RtcTable &t, const CompileRequest &req, const std::vector<std::string> &opts)
{
	CompileOutput o;
	void *prog = nullptr;
	int e = t.create(&prog, req.source.c_str(), "rdnafix_validate.cu", 0, nullptr, nullptr);
	if (e) {
		o.status = e;
		o.log = std::string("create program: ") + (t.error_string(e) ? t.error_string(e) : "");
		return o;
	}
	std::vector<const char *> argv;
	for (const auto &s : opts)
		argv.push_back(s.c_str());
	e = t.compile(prog, int(argv.size()), argv.data());
	size_t ls = 0;
	if (t.log_size(prog, &ls) == 0 && ls > 1) {
		std::string l(ls, '\0');
		if (t.log(prog, l.data()) == 0)
			o.log = l.c_str();
	}
	if (e) {
		o.status = e;
		o.log = std::string(t.error_string(e) ? t.error_string(e) : "compile failed") + "\n" + o.log;
	} else {
		size_t cs = 0;
		if ((e = t.code_size(prog, &cs)) == 0 && cs) {
			o.code.resize(cs);
			e = t.code(prog, reinterpret_cast<char *>(o.code.data()));
		}
		if (e) {
			o.status = e;
			o.code.clear();
		}
	}
	t.destroy(&prog);
	return o;
}

template <typename F> void bind(const DlHandle &lib, F &fn, const char *name)
{
	fn = reinterpret_cast<F>(lib.sym(name));
}

class RtcBase : public Rtc {
public:
	CompileResult compile(const CompileRequest &req) override
	{
		if (req.source.empty())
			throw GpuError("compile", -1, "empty kernel source");
		if (check_targets_)
			check_target(req.target);
		CompileResult r;
		std::string ver = version();
		if (!cache_dir_.empty()) {
			r.cache_file = cache_path(cache_dir_, api(), req, ver);
			if (read_cached(r.cache_file, api(), req, r.code)) {
				r.from_cache = true;
				return r;
			}
		}
		auto t0 = std::chrono::steady_clock::now();
		CompileOutput o = run_compile(req);
		r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		r.log = o.log;
		if (o.status != 0)
			throw GpuError(std::string(api() == Api::hip ? "hiprtcCompileProgram" : "nvrtcCompileProgram") +
					       " (" + req.target + ")",
				       o.status, o.log);
		if (auto why = check_code_object(api(), o.code, req.kernel_names); !why.empty())
			throw GpuError("compile (" + req.target + ")", -1,
				       "compiler returned a bad code object: " + why);
		r.code = std::move(o.code);
		if (!r.cache_file.empty())
			write_cached(r.cache_file, r.code);
		return r;
	}

protected:
	virtual void check_target(const std::string &target) const = 0;
	virtual CompileOutput run_compile(const CompileRequest &req) = 0;
};

class HipRtc final : public RtcBase {
public:
	HipRtc(DlHandle rtc, DlHandle comgr, int runtime_version)
	    : rtc_(std::move(rtc)), comgr_(std::move(comgr)), runtime_version_(runtime_version)
	{
		bind(rtc_, t_.create, "hiprtcCreateProgram");
		bind(rtc_, t_.compile, "hiprtcCompileProgram");
		bind(rtc_, t_.log_size, "hiprtcGetProgramLogSize");
		bind(rtc_, t_.log, "hiprtcGetProgramLog");
		bind(rtc_, t_.code_size, "hiprtcGetCodeSize");
		bind(rtc_, t_.code, "hiprtcGetCode");
		bind(rtc_, t_.destroy, "hiprtcDestroyProgram");
		bind(rtc_, t_.error_string, "hiprtcGetErrorString");
		int (*count)(size_t *) = nullptr;
		int (*name)(size_t, const char **) = nullptr;
		bind(comgr_, count, "amd_comgr_get_isa_count");
		bind(comgr_, name, "amd_comgr_get_isa_name");
		size_t n = 0;
		if (count && name && count(&n) == 0) {
			for (size_t i = 0; i < n; ++i) {
				const char *s = nullptr;
				if (name(i, &s) == 0 && s) {
					std::string isa = s; // "amdgcn-amd-amdhsa--gfx1030"
					auto p = isa.rfind("--");
					targets_.push_back(p == std::string::npos ? isa : isa.substr(p + 2));
				}
			}
		}
	}
	Api api() const override { return Api::hip; }
	std::vector<std::string> supported_targets() const override { return targets_; }
	std::string version() const override
	{
		// hiprtcVersion() is a constant 9.0: key on the runtime version + comgr file.
		return "hip-" + std::to_string(runtime_version_) + "-" + comgr_.path();
	}

private:
	void check_target(const std::string &target) const override
	{
		std::string base = target.substr(0, target.find(':'));
		if (std::find(targets_.begin(), targets_.end(), base) != targets_.end())
			return;
		std::string list;
		for (const auto &t : targets_)
			if (t.rfind("gfx1", 0) == 0)
				list += (list.empty() ? "" : " ") + t;
		throw GpuError("compile", -1,
			       "target '" + target + "' is not known to comgr (" + comgr_.path() +
				       "); hiprtc would abort. Valid RDNA targets here: " + list);
	}
	CompileOutput run_compile(const CompileRequest &req) override
	{
		std::vector<std::string> opts = {"--offload-arch=" + req.target, "-O3"};
		opts.insert(opts.end(), req.options.begin(), req.options.end());
		return compile_in_fork("hiprtc (" + req.target + ")", fork_timeout_s_,
				       [&] { return rtc_compile(t_, req, opts); });
	}

	DlHandle rtc_, comgr_;
	int runtime_version_;
	RtcTable t_{};
	std::vector<std::string> targets_;
};

class NvRtc final : public RtcBase {
public:
	explicit NvRtc(DlHandle rtc) : rtc_(std::move(rtc))
	{
		bind(rtc_, t_.create, "nvrtcCreateProgram");
		bind(rtc_, t_.compile, "nvrtcCompileProgram");
		bind(rtc_, t_.log_size, "nvrtcGetProgramLogSize");
		bind(rtc_, t_.log, "nvrtcGetProgramLog");
		bind(rtc_, t_.code_size, "nvrtcGetCUBINSize");
		bind(rtc_, t_.code, "nvrtcGetCUBIN");
		bind(rtc_, t_.destroy, "nvrtcDestroyProgram");
		bind(rtc_, t_.error_string, "nvrtcGetErrorString");
		int (*ver)(int *, int *) = nullptr;
		bind(rtc_, ver, "nvrtcVersion");
		int ma = 0, mi = 0;
		if (ver && ver(&ma, &mi) == 0)
			version_ = std::to_string(ma) + "." + std::to_string(mi);
		int (*num)(int *) = nullptr;
		int (*archs)(int *) = nullptr;
		bind(rtc_, num, "nvrtcGetNumSupportedArchs");
		bind(rtc_, archs, "nvrtcGetSupportedArchs");
		int n = 0;
		if (num && archs && num(&n) == 0 && n > 0 && n < 1000) {
			std::vector<int> a(static_cast<size_t>(n));
			if (archs(a.data()) == 0)
				for (int v : a)
					targets_.push_back("sm_" + std::to_string(v));
		}
	}
	Api api() const override { return Api::cuda; }
	std::vector<std::string> supported_targets() const override { return targets_; }
	std::string version() const override { return "nvrtc-" + version_ + "-" + rtc_.path(); }

private:
	void check_target(const std::string &target) const override
	{
		if (targets_.empty() || std::find(targets_.begin(), targets_.end(), target) != targets_.end())
			return;
		std::string list;
		for (const auto &t : targets_)
			list += (list.empty() ? "" : " ") + t;
		throw GpuError("compile", -1,
			       "target '" + target + "' is not supported by NVRTC " + version_ + ": " + list);
	}
	CompileOutput run_compile(const CompileRequest &req) override
	{
		// NVRTC reports errors instead of aborting: compiled in-process.
		std::vector<std::string> opts = {"--gpu-architecture=" + req.target, "--std=c++17"};
		opts.insert(opts.end(), req.options.begin(), req.options.end());
		return rtc_compile(t_, req, opts);
	}

	DlHandle rtc_;
	RtcTable t_{};
	std::string version_ = "?";
	std::vector<std::string> targets_;
};

} // namespace

std::unique_ptr<Rtc> load_rtc(const ProbeResult &probe, const SearchConfig &, std::string *why)
{
	std::vector<LoadAttempt> log;
	auto fail = [&](const std::string &m) -> std::unique_ptr<Rtc> {
		if (why)
			*why += m;
		return nullptr;
	};
	if (probe.rtc_path.empty())
		return fail(std::string("no ") + (probe.api == Api::hip ? "hiprtc" : "NVRTC") +
			    " library found (see 'looked in')");
	if (probe.api == Api::hip) {
		if (probe.comgr_path.empty())
			return fail("no comgr library (libamd_comgr.so.3/.2) found: hiprtc crashes without it, not "
				    "compiling");
		// comgr first and RTLD_GLOBAL, so hiprtc's own dlopen("libamd_comgr.so.N") finds this one.
		DlHandle comgr = DlHandle::open("comgr", probe.comgr_path, comgr_symbols(), log, true);
		DlHandle rtc = DlHandle::open("rtc", probe.rtc_path, hiprtc_symbols(), log);
		if (!comgr || !rtc)
			return fail(log.back().path + ": " + log.back().detail);
		return std::make_unique<HipRtc>(std::move(rtc), std::move(comgr), probe.runtime_version);
	}
	DlHandle rtc = DlHandle::open("rtc", probe.rtc_path, nvrtc_symbols(), log);
	if (!rtc)
		return fail(log.back().path + ": " + log.back().detail);
	return std::make_unique<NvRtc>(std::move(rtc));
}

} // namespace rdnafix::gpu
