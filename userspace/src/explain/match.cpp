// Matching: the lines of a log against the signatures of the catalogue,
// multi-line blocks grouped (amdgpu VM fault blocks through
// core/amdgpu_fault, hipErrorNoBinaryForGpu with its lists, resets, MES and
// firmware sequences), identical repeats folded (fold.cpp).  Lines are pulled
// from a LineSource as they are reached and dropped behind: a log of any
// length is matched in the memory of a few lines.  Pure.
#include "explain/match_lines.hpp"

#include "explain/fold.hpp"

#include "core/parse.hpp"

#include <deque>

#include <fmt/format.h>

namespace rdnafix::explain {

namespace af = core::amdgpu_fault;
using detail::Fold;

namespace {

constexpr std::size_t kExcerpt = 12; // lines kept per match
constexpr std::size_t kWindow = 12;  // a block continues over at most this many unrelated lines

// Lines that belong to an amdgpu VM fault block.
bool fault_part(std::string_view l)
{
	af::VmFault scratch;
	if (af::parse_page_fault_line(l, &scratch) || af::find_status(l) || af::parse_fault_address(l))
		return true;
	if (l.find("Faulty UTCL2 client ID") != std::string_view::npos)
		return true;
	for (std::string_view k : {"MORE_FAULTS:", "WALKER_ERROR:", "PERMISSION_FAULTS:", "MAPPING_ERROR:"})
		if (l.find(k) != std::string_view::npos)
			return true;
	if ((l.find("\t RW: 0x") != std::string_view::npos || l.find(" RW: 0x") != std::string_view::npos) &&
	    l.find("amdgpu") != std::string_view::npos)
		return true;
	if (l.find("_process_interrupt") != std::string_view::npos &&
	    l.find("callbacks suppressed") != std::string_view::npos)
		return true;
	return l.find("amdgpu") != std::string_view::npos && af::parse_process_line(l, &scratch);
}

void add_excerpt(Match &m, const LogLine &l)
{
	if (m.excerpt.size() < kExcerpt)
		m.excerpt.push_back(l.text);
	m.last_line = l.number;
}

Match start(Sig s, const LogLine &l)
{
	Match m;
	m.sig = s;
	m.first_line = m.last_line = l.number;
	m.excerpt.push_back(l.text);
	return m;
}

bool groupable(Sig s)
{
	return s == Sig::gpu_reset || s == Sig::mes_failure || s == Sig::firmware_load ||
	       s == Sig::hw_exception_gpu_hang || s == Sig::ring_timeout;
}

// The lines of the log as the matcher reaches them: pulled from the source
// on demand, dropped once behind it, so a few lines are held at a time.
class Window {
public:
	explicit Window(LineSource &src) : src_(src) {}
	const LogLine *at(std::size_t i)
	{
		while (base_ + buf_.size() <= i) {
			auto l = src_.next();
			if (!l)
				return nullptr;
			buf_.push_back(std::move(*l));
		}
		return i < base_ ? nullptr : &buf_[i - base_];
	}
	void drop_before(std::size_t i)
	{
		while (base_ < i && !buf_.empty()) {
			buf_.pop_front();
			++base_;
		}
	}

private:
	LineSource &src_;
	std::deque<LogLine> buf_; // lines base_, base_ + 1, ...
	std::size_t base_ = 0;
};

// The keys of the fold: what makes two matches "the same" (counted, not repeated).
std::string fault_key(const af::VmFault &f)
{
	// a fault storm: the same process, VMID and status again
	const auto opt = [](const auto &v) { return v ? fmt::format("{}", *v) : std::string("-"); };
	return fmt::format("{}|{}|{}|{}|{}|{}", int(Sig::vm_fault), f.device, opt(f.pasid), opt(f.pid), opt(f.vmid),
			   f.status ? fmt::format("{:x}", f.status->raw) : std::string("-"));
}

std::string joined(const std::vector<std::string> &v)
{
	std::string s;
	for (const auto &x : v)
		s += x + '\n';
	return s;
}

// A fault block: the fault-part lines from `i` on, at most 2 unrelated lines
// apart, through the fault parser (lines numbered as in the input); each
// fault gets the lines fed while it was open.  Returns the index of the
// block's last fault-part line.
std::size_t fault_block(Window &w, std::size_t i, Fold &fold)
{
	af::VmFaultParser parser;
	Match cur; // the lines of the fault being assembled
	std::optional<std::size_t> cur_since;
	const auto emit = [&](std::vector<af::VmFault> done) {
		for (auto &f : done) {
			Match m;
			if (cur_since == f.first_index) {
				m = std::move(cur);
				cur = Match{};
				cur_since.reset();
			} else {
				m.first_line = f.first_index;
				m.last_line = f.last_index;
			}
			const std::string key = fault_key(f);
			if (fold.repeat(key))
				continue;
			m.sig = Sig::vm_fault;
			m.device = f.device;
			m.address = f.address;
			m.fault = std::move(f);
			fold.add(key, std::move(m));
		}
	};
	std::size_t last = i, gap = 0;
	for (std::size_t j = i; gap <= 2; ++j) {
		const LogLine *l = w.at(j);
		if (!l)
			break;
		if (j != i && !fault_part(l->text)) {
			++gap;
			continue;
		}
		gap = 0;
		last = j;
		parser.feed(l->text, l->number);
		if (const auto since = parser.open_since(); since != cur_since) {
			emit(parser.take_complete()); // the fault before (with `cur`) is complete
			cur = Match{};
			cur_since = since;
			if (since)
				cur.first_line = *since;
		}
		if (cur_since)
			add_excerpt(cur, *l);
		emit(parser.take_complete());
		w.drop_before(j + 1);
	}
	emit(parser.finish());
	return last;
}

} // namespace

Matches match_lines(LineSource &src, std::size_t keep)
{
	Fold fold(keep);
	Window w(src);
	for (std::size_t i = 0; w.at(i); ++i) {
		w.drop_before(i);
		const std::string_view t = w.at(i)->text;
		if (fault_part(t) && t.find("callbacks suppressed") == std::string_view::npos) {
			i = fault_block(w, i, fold);
			continue;
		}
		auto sig = classify(t);
		if (!sig)
			continue;
		const LogLine &li = *w.at(i);
		if (*sig == Sig::no_binary_for_gpu) {
			Match m = start(*sig, li);
			NoBinaryDecode d;
			std::size_t j = i + 1;
			int section = 0;
			for (const LogLine *lj; (lj = w.at(j)) && parse_nobinary_line(lj->text, &d, &section); ++j) {
				add_excerpt(m, *lj);
				w.drop_before(j);
			}
			finish_nobinary(&d);
			// AMD_LOG_LEVEL logs print it per library: fold identical decodes.
			const std::string key =
				fmt::format("{}|{}|{}", int(*sig), joined(d.devices), joined(d.bundled));
			m.nobinary = std::move(d);
			i = j - 1;
			if (!fold.repeat(key))
				fold.add(key, std::move(m));
			continue;
		}
		Match m = start(*sig, li);
		fill_facts(&m, t);
		if (const LogLine *next = w.at(i + 1); *sig == Sig::ring_timeout && next &&
						       next->text.find("rocess") != std::string_view::npos &&
						       !classify(next->text)) {
			add_excerpt(m, *next);
			m.detail += " (" + std::string(core::trim(next->text)) + ")";
			++i;
		}
		Match *b = fold.last();
		if (b && groupable(*sig) && b->sig == *sig && m.first_line - b->last_line <= kWindow) {
			add_excerpt(*b, *w.at(i));
			if (*sig == Sig::hw_exception_gpu_hang || *sig == Sig::ring_timeout)
				++b->count;
			continue;
		}
		// identical single-line signatures anywhere in the log: one match, counted
		const std::string key =
			groupable(*sig) ? std::string()
					: fmt::format("{}|{}|{}|{}", int(*sig), m.detail,
						      m.node ? fmt::format("{}", *m.node) : std::string("-"),
						      m.address ? fmt::format("{:x}", *m.address) : std::string("-"));
		if (!fold.repeat(key))
			fold.add(key, std::move(m));
	}
	return fold.take();
}

namespace {

class LogLines : public LineSource {
public:
	explicit LogLines(const Log &log) : log_(log) {}
	std::optional<LogLine> next() override
	{
		if (at_ >= log_.lines.size())
			return std::nullopt;
		return log_.lines[at_++];
	}

private:
	const Log &log_;
	std::size_t at_ = 0;
};

} // namespace

std::vector<Match> match_log(const Log &log)
{
	LogLines src(log);
	return match_lines(src).matches;
}

} // namespace rdnafix::explain
