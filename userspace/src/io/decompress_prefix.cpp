// inflate_prefix() / inflate_windows(): the first bytes, or some spans, of a
// compressed offload bundle's payload with the shared zstd / zlib decoders
// (decompress_impl.hpp), charged to a decompression budget.
#include "io/decompress.hpp"
#include "io/decompress_impl.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace rdnafix::io {

namespace {

class FnSource : public detail::Source {
public:
	explicit FnSource(const ChunkSource &f) : f_(f) {}
	core::Result<std::string_view> next() override { return f_(); }

private:
	const ChunkSource &f_;
};

using Clock = std::chrono::steady_clock;

// Keeps the output bytes that fall in the spans; stops after the last span's
// end (or runs to the stream's end), or with an error when the output passes
// the declared size or the budget is spent.
class WindowSink : public detail::Sink {
public:
	WindowSink(const std::vector<Span> &spans, std::uint64_t end, bool to_end, std::uint64_t declared,
		   InflateBudget *budget)
	    : spans_(spans), end_(end), to_end_(to_end), declared_(declared), budget_(budget)
	{
		data_.resize(spans_.size());
		for (std::size_t i = 0; i < spans_.size(); ++i)
			data_[i].reserve(spans_[i].length);
		// (1e9 s and more: no deadline; the conversion would overflow.)
		if (budget_ && budget_->seconds_left < 1e9)
			deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
							   std::chrono::duration<double>(budget_->seconds_left));
	}
	bool add(const char *p, std::size_t n) override
	{
		const std::uint64_t at = total_;
		total_ += n;
		if (total_ > declared_) {
			over_ = true;
			return false;
		}
		if (budget_ && !charge(n))
			return false;
		for (std::size_t i = 0; i < spans_.size(); ++i) {
			const std::uint64_t lo = std::max(at, spans_[i].offset);
			const std::uint64_t hi = std::min(total_, spans_[i].offset + spans_[i].length);
			if (lo < hi)
				data_[i].append(p + (lo - at), hi - lo);
		}
		// Asked for all of it: run to the stream's end, so that more output
		// than declared is still caught.
		return total_ < end_ || to_end_;
	}
	std::vector<std::string> data_;
	std::uint64_t total_ = 0;
	bool over_ = false;

private:
	bool charge(std::size_t n)
	{
		if (n > budget_->bytes_left) {
			budget_->bytes_left = 0;
			budget_->spent = InflateBudget::Spent::bytes;
			return false;
		}
		budget_->bytes_left -= n;
		if (Clock::now() >= deadline_) {
			budget_->spent = InflateBudget::Spent::seconds;
			return false;
		}
		return true;
	}
	const std::vector<Span> &spans_;
	std::uint64_t end_;
	bool to_end_;
	std::uint64_t declared_;
	InflateBudget *budget_;
	Clock::time_point deadline_ = Clock::time_point::max();
};

// Subtracts the time one call took from the budget, whatever way it returns.
class SecondsCharge {
public:
	explicit SecondsCharge(InflateBudget *b) : b_(b), t0_(Clock::now()) {}
	~SecondsCharge()
	{
		if (b_)
			b_->seconds_left = std::max(
				0.0, b_->seconds_left - std::chrono::duration<double>(Clock::now() - t0_).count());
	}
	SecondsCharge(const SecondsCharge &) = delete;
	SecondsCharge &operator=(const SecondsCharge &) = delete;

private:
	InflateBudget *b_;
	Clock::time_point t0_;
};

} // namespace

core::Result<Windows> inflate_windows(Codec codec, const ChunkSource &next, std::vector<Span> spans,
				      std::uint64_t declared_size, std::uint64_t cap, InflateBudget *budget)
{
	const char *name = codec == Codec::zstd ? "zstd" : "zlib";
	std::uint64_t end = 0;
	for (Span &sp : spans) {
		if (sp.offset > UINT64_MAX - sp.length || sp.offset + sp.length > cap)
			return core::Error{fmt::format(
				"{}: output up to byte {} asked for, over the {}-byte limit", name,
				sp.offset > UINT64_MAX - sp.length ? UINT64_MAX : sp.offset + sp.length, cap)};
		sp.length = sp.offset >= declared_size ? 0 : std::min(sp.length, declared_size - sp.offset);
		end = std::max(end, sp.offset + sp.length);
	}
	Windows out;
	out.data.resize(spans.size());
	if (end == 0)
		return out;
	if (budget && budget->spent != InflateBudget::Spent::no)
		return core::Error{fmt::format("{}: the decompression budget is spent", name)};
	FnSource in(next);
	SecondsCharge timed(budget);
	WindowSink sink(spans, end, end == declared_size, declared_size, budget);
	auto r = codec == Codec::zstd ? detail::zstd_stream(in, sink) : detail::zlib_stream(in, sink, MAX_WBITS, name);
	if (!r)
		return r.error();
	if (budget && budget->spent != InflateBudget::Spent::no)
		return core::Error{fmt::format("{}: the decompression budget is spent", name)};
	if (sink.over_)
		return core::Error{fmt::format("{}: the data inflates to more than the {} bytes its header declares",
					       name, declared_size)};
	if (*r == detail::Ended::stream_end) {
		if (sink.total_ != declared_size)
			return core::Error{fmt::format("{}: the data inflates to {} bytes, its header declares {}",
						       name, sink.total_, declared_size)};
		out.whole = true;
	}
	out.data = std::move(sink.data_);
	return out;
}

core::Result<Prefix> inflate_prefix(Codec codec, const ChunkSource &next, std::uint64_t want,
				    std::uint64_t declared_size, std::uint64_t cap, InflateBudget *budget)
{
	const char *name = codec == Codec::zstd ? "zstd" : "zlib";
	if (want > cap)
		return core::Error{
			fmt::format("{}: {} bytes of output asked for, over the {}-byte limit", name, want, cap)};
	auto w = inflate_windows(codec, next, {Span{0, want}}, declared_size, cap, budget);
	if (!w)
		return w.error();
	Prefix out;
	out.data = std::move(w->data[0]);
	out.whole = w->whole;
	return out;
}

} // namespace rdnafix::io
