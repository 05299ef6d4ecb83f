#include "backend.hpp"

#include <sstream>

#include "driver.hpp"
#include "loader.hpp"

namespace rdnafix::gpu {

const char *api_name(Api api)
{
	return api == Api::hip ? "HIP" : "CUDA";
}

GpuError::GpuError(std::string call, int code, std::string text)
    : std::runtime_error(call + ": " + (code != -1 ? std::to_string(code) + " " : std::string()) + text),
      call_(std::move(call)), code_(code), text_(std::move(text))
{
}

void Driver::check(int code, const char *call)
{
	if (code != 0) {
		std::string t = error_text(code);
		throw GpuError(call, code, error_name(code) + (t.empty() ? "" : " (" + t + ")"));
	}
}

// ---------------------------------------------------------------- RAII handles
Buffer::Buffer(Driver *drv, MemKind kind, std::size_t bytes, void *host, std::uint64_t dev)
    : drv_(drv), kind_(kind), bytes_(bytes), host_(host), dev_(dev)
{
}
Buffer::Buffer(Buffer &&o) noexcept
{
	*this = std::move(o);
}
Buffer &Buffer::operator=(Buffer &&o) noexcept
{
	if (this != &o) {
		release();
		drv_ = o.drv_;
		kind_ = o.kind_;
		bytes_ = o.bytes_;
		host_ = o.host_;
		dev_ = o.dev_;
		o.drv_ = nullptr;
		o.bytes_ = 0;
		o.host_ = nullptr;
		o.dev_ = 0;
	}
	return *this;
}
Buffer::~Buffer()
{
	release();
}
void Buffer::release() noexcept
{
	if (drv_ && bytes_)
		drv_->free(kind_, host_, dev_);
	drv_ = nullptr;
	bytes_ = 0;
}

Event::Event(Event &&o) noexcept : drv_(o.drv_), ev_(o.ev_)
{
	o.ev_ = nullptr;
}
Event &Event::operator=(Event &&o) noexcept
{
	if (this != &o) {
		if (ev_)
			drv_->event_destroy(ev_);
		drv_ = o.drv_;
		ev_ = o.ev_;
		o.ev_ = nullptr;
	}
	return *this;
}
Event::~Event()
{
	if (ev_)
		drv_->event_destroy(ev_);
}

Module::Module(Module &&o) noexcept : drv_(o.drv_), mod_(o.mod_)
{
	o.mod_ = nullptr;
}
Module &Module::operator=(Module &&o) noexcept
{
	if (this != &o) {
		if (mod_)
			drv_->module_unload(mod_);
		drv_ = o.drv_;
		mod_ = o.mod_;
		o.mod_ = nullptr;
	}
	return *this;
}
Module::~Module()
{
	if (mod_)
		drv_->module_unload(mod_);
}
Function Module::function(const std::string &name) const
{
	Function f;
	f.name = name;
	f.raw = drv_->module_function(mod_, name);
	return f;
}

// ---------------------------------------------------------------- probe
namespace {

std::unique_ptr<Driver> open_runtime(Api api, const SearchConfig &cfg, ProbeResult &r)
{
	const auto &syms = api == Api::hip ? hip_runtime_symbols() : cuda_driver_symbols();
	for (const auto &path : runtime_candidates(api, cfg)) {
		DlHandle h = DlHandle::open("runtime", path, syms, r.attempts);
		if (!h)
			continue;
		r.runtime_path = path;
		return api == Api::hip ? make_hip_driver(std::move(h)) : make_cuda_driver(std::move(h));
	}
	return nullptr;
}

void find_rtc(Api api, const SearchConfig &cfg, ProbeResult &r)
{
	const auto &syms = api == Api::hip ? hiprtc_symbols() : nvrtc_symbols();
	for (const auto &path : rtc_candidates(api, cfg, r.runtime_path)) {
		if (DlHandle::open("rtc", path, syms, r.attempts)) {
			r.rtc_path = path;
			break;
		}
	}
	if (api == Api::hip && r.rtc_path.empty() && !r.runtime_path.empty()) {
		// Debian trixie (HIP 5.7): the hiprtc API is inside libamdhip64.so.5.
		if (DlHandle::open("rtc", r.runtime_path, syms, r.attempts))
			r.rtc_path = r.runtime_path;
	}
	if (api == Api::hip) {
		for (const auto &path : comgr_candidates(cfg, r.runtime_path)) {
			if (DlHandle::open("comgr", path, comgr_symbols(), r.attempts)) {
				r.comgr_path = path;
				break;
			}
		}
	}
}

} // namespace

ProbeResult probe(Api api, const SearchConfig &cfg)
{
	ProbeResult r;
	r.api = api;
	auto drv = open_runtime(api, cfg, r);
	find_rtc(api, cfg, r);
	if (!drv) {
		r.state = ProbeState::no_runtime;
		return r;
	}
	r.runtime_version = drv->runtime_version();
	r.driver_version = drv->driver_version();
	auto classify = [&](int code, const char *call) {
		r.init_error = code;
		r.init_error_name = std::string(call) + ": " + drv->error_name(code);
		r.init_error_text = drv->error_text(code);
		r.state = code == drv->no_device_code() ? ProbeState::runtime_no_device : ProbeState::init_failed;
	};
	if (int e = drv->init_raw(); e != 0) {
		classify(e, api == Api::hip ? "hipInit" : "cuInit");
		return r;
	}
	int n = 0;
	if (int e = drv->device_count_raw(&n); e != 0) {
		classify(e, api == Api::hip ? "hipGetDeviceCount" : "cuDeviceGetCount");
		return r;
	}
	if (n < 0 || n > kMaxDeviceCount) {
		// Not a count: a broken runtime (or shim).  Never used as one.
		r.state = ProbeState::init_failed;
		r.init_error_name = std::string(api == Api::hip ? "hipGetDeviceCount" : "cuDeviceGetCount") +
				    " returned an impossible device count " + std::to_string(n);
		r.init_error_text = "a device count is 0.." + std::to_string(kMaxDeviceCount);
		return r;
	}
	if (n == 0) {
		r.state = ProbeState::runtime_no_device;
		r.init_error_name = "device count 0";
		return r;
	}
	try {
		for (int i = 0; i < n; ++i)
			r.devices.push_back(drv->device_info(i));
		r.state = ProbeState::ok;
	} catch (const GpuError &e) {
		r.state = ProbeState::init_failed;
		r.init_error = e.code();
		r.init_error_name = e.call();
		r.init_error_text = e.text();
	}
	return r;
}

namespace {

std::string version_text(Api api, int v)
{
	if (v <= 0)
		return "unknown";
	if (api == Api::hip) // major*10^7 + minor*10^5 + patch
		return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." +
		       std::to_string(v % 100000);
	return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); // 13000 -> 13.0
}

} // namespace

std::string ProbeResult::describe() const
{
	std::ostringstream o;
	const char *a = api_name(api);
	switch (state) {
	case ProbeState::no_runtime:
		o << "no " << a << " runtime found";
		break;
	case ProbeState::runtime_no_device:
		o << a << " runtime " << version_text(api, runtime_version) << " (" << runtime_path
		  << ") but no device: " << init_error_name;
		if (init_error)
			o << " = " << init_error;
		if (!init_error_text.empty())
			o << " (" << init_error_text << ")";
		break;
	case ProbeState::init_failed:
		o << a << " runtime " << version_text(api, runtime_version) << " (" << runtime_path
		  << ") failed to initialise: " << init_error_name;
		if (init_error)
			o << " = " << init_error;
		if (!init_error_text.empty())
			o << " (" << init_error_text << ")";
		break;
	case ProbeState::ok:
		o << a << " runtime " << version_text(api, runtime_version) << " (" << runtime_path << "), "
		  << devices.size() << " device(s)";
		for (const auto &d : devices)
			o << "\n  [" << d.index << "] " << d.name << " "
			  << (d.arch_full.empty() ? "arch?" : d.arch_full) << " " << (d.total_bytes >> 20) << " MiB"
			  << (d.integrated ? " integrated" : "") << (d.pci_bus_id.empty() ? "" : " " + d.pci_bus_id);
		break;
	}
	o << "\n  compiler: " << (rtc_path.empty() ? std::string("none found") : rtc_path);
	if (api == Api::hip)
		o << "\n  comgr: " << (comgr_path.empty() ? std::string("none found") : comgr_path);
	if (state != ProbeState::ok) {
		o << "\n  looked in:";
		for (const auto &at : attempts)
			o << "\n    " << at.what << " " << at.path << ": " << (at.ok ? "ok" : at.detail);
	}
	return o.str();
}

// ---------------------------------------------------------------- backend
std::unique_ptr<Backend> Backend::open(const ProbeResult &probe, int index)
{
	if (probe.state != ProbeState::ok)
		throw GpuError("open", -1, probe.describe());
	if (index < 0 || index >= int(probe.devices.size()))
		throw GpuError("open", -1,
			       "device index " + std::to_string(index) + " out of range: valid 0.." +
				       std::to_string(probe.devices.size() - 1));
	std::vector<LoadAttempt> log;
	const auto &syms = probe.api == Api::hip ? hip_runtime_symbols() : cuda_driver_symbols();
	DlHandle h = DlHandle::open("runtime", probe.runtime_path, syms, log);
	if (!h)
		throw GpuError("dlopen", -1, probe.runtime_path + ": " + log.back().detail);
	std::unique_ptr<Backend> b(new Backend());
	b->drv_ = probe.api == Api::hip ? make_hip_driver(std::move(h)) : make_cuda_driver(std::move(h));
	b->probe_ = probe;
	if (int e = b->drv_->init_raw(); e != 0)
		throw GpuError(probe.api == Api::hip ? "hipInit" : "cuInit", e, b->drv_->error_name(e));
	b->drv_->open(index);
	b->dev_ = probe.devices[index];
	return b;
}

Backend::~Backend() = default;

Api Backend::api() const
{
	return drv_->api();
}
bool Backend::supports(MemKind k) const
{
	return k != MemKind::pageable && drv_->supports(k, dev_);
}

Buffer Backend::alloc(MemKind k, std::size_t bytes)
{
	if (bytes == 0)
		throw GpuError("alloc", -1, "zero-byte allocation");
	if (!supports(k))
		throw GpuError("alloc", -1,
			       std::string("memory kind ") + memkind_name(k) + " is not supported by " +
				       api_name(api()) + " on " + dev_.name);
	std::uint64_t dev = 0;
	void *host = drv_->alloc(k, bytes, &dev);
	return Buffer(drv_.get(), k, bytes, host, dev);
}

std::pair<std::uint64_t, std::uint64_t> Backend::mem_info()
{
	std::uint64_t f = 0, t = 0;
	drv_->mem_info(&f, &t);
	return {f, t};
}

void Backend::copy_h2d(std::uint64_t dst, const void *src, std::size_t n)
{
	drv_->copy(CopyDir::h2d, dst, reinterpret_cast<std::uint64_t>(src), n);
}
void Backend::copy_d2h(void *dst, std::uint64_t src, std::size_t n)
{
	drv_->copy(CopyDir::d2h, reinterpret_cast<std::uint64_t>(dst), src, n);
}
void Backend::copy_d2d(std::uint64_t dst, std::uint64_t src, std::size_t n)
{
	drv_->copy(CopyDir::d2d, dst, src, n);
}
void Backend::memset_d8(std::uint64_t dst, unsigned char v, std::size_t n)
{
	drv_->memset_d8(dst, v, n);
}

Module Backend::load_module(const std::vector<std::uint8_t> &code)
{
	if (code.empty())
		throw GpuError("load_module", -1, "empty code object");
	return Module(drv_.get(), drv_->module_load(code.data()));
}

void Backend::launch(const Function &f, Dim3 grid, Dim3 block, unsigned shared_bytes, void **args)
{
	drv_->launch(f.raw, grid, block, shared_bytes, args);
}
void Backend::set_max_dynamic_shared(const Function &f, unsigned bytes)
{
	drv_->set_max_dynamic_shared(f.raw, bytes);
}

Event Backend::event()
{
	return Event(drv_.get(), drv_->event_create());
}
void Backend::record(const Event &e)
{
	drv_->event_record(e.raw());
}
float Backend::elapsed_ms(const Event &a, const Event &b)
{
	return drv_->event_elapsed_ms(a.raw(), b.raw());
}
void Backend::synchronize()
{
	drv_->synchronize();
}
std::string Backend::error_string(int code) const
{
	return drv_->error_name(code) + " (" + drv_->error_text(code) + ")";
}

} // namespace rdnafix::gpu
