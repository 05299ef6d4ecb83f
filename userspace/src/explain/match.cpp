// Matching: the lines of a log against the signatures of the catalogue,
// multi-line blocks grouped (amdgpu VM fault blocks through
// core/amdgpu_fault, hipErrorNoBinaryForGpu with its lists, resets, MES and
// firmware sequences), identical repeats folded (fold.cpp).  Lines are pulled
// from a LineSource as they are reached and dropped behind: a log of any
// length is matched in the memory of a few lines.  Pure.
#include "explain/match_lines.hpp"

#include "explain/fold.hpp"

#include "core/parse.hpp"

#include <algorithm>
#include <cctype>
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
	if ((l.find("for process ") != std::string_view::npos || l.find(" in process ") != std::string_view::npos) &&
	    l.find("amdgpu") != std::string_view::npos && l.find(" pid ") != std::string_view::npos)
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

Match start(Sig s, const knowledge::Entry *e, const LogLine &l)
{
	Match m;
	m.sig = s;
	m.entry = e;
	m.first_line = m.last_line = l.number;
	m.excerpt.push_back(l.text);
	return m;
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
std::string fault_key(Sig vm_fault, const af::VmFault &f)
{
	// a fault storm: the same process, VMID and status again
	const auto opt = [](const auto &v) { return v ? fmt::format("{}", *v) : std::string("-"); };
	return fmt::format("{}|{}|{}|{}|{}|{}", vm_fault, f.device, opt(f.pasid), opt(f.pid), opt(f.vmid),
			   f.status ? fmt::format("{:x}", f.status->raw) : std::string("-"));
}

std::string joined(const std::vector<std::string> &v)
{
	std::string s;
	for (const auto &x : v)
		s += x + '\n';
	return s;
}

// The facts of a parsed fault as the entry's captures (the names its
// patterns use: hub, vmid, pasid, process, pid, address).
void fault_captures(const af::VmFault &f, const knowledge::Entry &e, Match *m)
{
	const auto add = [&](const char *name, std::string value) {
		if (e.capture(name) && !value.empty())
			m->captures.emplace_back(name, std::move(value));
	};
	if (!m->excerpt.empty()) {
		const std::string_view first = m->excerpt.front();
		const auto hub = first.find("hub");
		const auto open = first.rfind('[', hub);
		const auto close = first.find(']', hub == std::string_view::npos ? 0 : hub);
		if (hub != std::string_view::npos && open != std::string_view::npos &&
		    close != std::string_view::npos && close - open < 16)
			add("hub", std::string(first.substr(open + 1, close - open - 1)));
	}
	if (f.vmid)
		add("vmid", std::to_string(*f.vmid));
	if (f.pasid)
		add("pasid", std::to_string(*f.pasid));
	add("process", f.process);
	if (f.pid)
		add("pid", std::to_string(*f.pid));
	if (f.address)
		add("address", fmt::format("0x{:x}", *f.address));
	add("utcl2_client", f.kernel_client);
}

// A fault block: the fault-part lines from `i` on, at most 2 unrelated lines
// apart, through the fault parser (lines numbered as in the input); each
// fault gets the lines fed while it was open.  Returns the index of the
// block's last fault-part line.
std::size_t fault_block(Window &w, std::size_t i, Fold &fold, Sig vm_fault, const knowledge::Matcher &km)
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
			// a repeat (same hub, process, VMID, status) is counted before anything else is done
			const std::string key = fault_key(vm_fault, f) + fmt::format("|{}", int(f.hub));
			if (fold.repeat(key))
				continue;
			// the entry: the VM-fault entry the fault's first line shows ([mmhub] has its own)
			Sig sig = vm_fault;
			if (!m.excerpt.empty())
				for (const auto &h : km.match(m.excerpt.front()))
					if (km.base().entries[h.entry].judge == knowledge::Judge::vm_fault)
						sig = h.entry;
			m.sig = sig;
			m.entry = &km.base().entries[sig];
			fault_captures(f, *m.entry, &m); // the block parser's reading, not the follow patterns (cost)
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

std::vector<std::string> block_literals()
{
	return {"page fault",
		"protection_fault_status",
		"in page starting at",
		"utcl2 client",
		"more_faults",
		"walker_error",
		"permission_faults",
		"mapping_error",
		" rw: 0x",
		"_process_interrupt",
		"process",
		"devices:",
		"bundled code objects:",
		"amdgcn-amd-amdhsa",
		"host-x86_64",
		"error",
		"fail",
		"fault",
		"exception",
		"abort",
		"rocblas",
		"miopen",
		"amdgpu",
		"rocm"};
}

namespace {

// A line no entry matched that still looks like an error (item of the
// "nothing known" answer).
bool looks_like_error(std::string_view t)
{
	std::string l(t.substr(0, 4096));
	for (auto &c : l)
		c = char(std::tolower(static_cast<unsigned char>(c)));
	for (std::string_view w : {"error", "fail", "fault", "exception", "abort", "hip", "hsa_", "rocblas", "miopen",
				   "amdgpu", "kfd", "rocm"})
		if (l.find(w) != std::string::npos)
			return true;
	return false;
}

// Two lines that differ only in numbers (timestamps, sequence numbers, handles).
bool same_shape(std::string_view a, std::string_view b)
{
	std::size_t i = 0, j = 0;
	const auto hexish = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
	while (i < a.size() || j < b.size()) {
		const bool na = i < a.size() && std::isdigit(static_cast<unsigned char>(a[i]));
		const bool nb = j < b.size() && std::isdigit(static_cast<unsigned char>(b[j]));
		if (na && nb) { // a number (with hex digits after a digit) on both sides
			while (i < a.size() && (hexish(a[i]) || a[i] == 'x'))
				++i;
			while (j < b.size() && (hexish(b[j]) || b[j] == 'x'))
				++j;
			continue;
		}
		if (i >= a.size() || j >= b.size() || a[i] != b[j])
			return false;
		++i;
		++j;
	}
	return true;
}

// The key of the fold for a single-line match: the entry and what it captured.
std::string match_key(const Match &m)
{
	std::string k = fmt::format("{}|{}", m.sig, m.device);
	for (const auto &[n, v] : m.captures)
		k += "|" + n + "=" + v;
	return k;
}

std::optional<Sig> entry_with(const knowledge::Base &b, knowledge::Judge j)
{
	for (std::size_t i = 0; i < b.entries.size(); ++i)
		if (b.entries[i].judge == j)
			return i;
	return std::nullopt;
}

} // namespace

namespace {

// One entry shown by line i: its block (the no-binary lists, follow lines,
// a group of repeats) into the fold.  Returns the index of the last line it
// took.
std::size_t one_hit(Window &w, std::size_t i, knowledge::Hit hit, const knowledge::Matcher &km, Fold &fold)
{
	const Sig sig = hit.entry;
	const knowledge::Entry &entry = km.base().entries[sig];
	const LogLine *at = w.at(i);
	if (!at) // a second no-binary entry (an overlay) after the first dropped the line
		return i;
	const LogLine &li = *at;
	const std::string_view t = li.text;
	if (entry.judge == knowledge::Judge::no_binary) {
		Match m = start(sig, &entry, li);
		m.captures = std::move(hit.captures);
		NoBinaryDecode d;
		std::size_t j = i + 1;
		int section = 0;
		for (const LogLine *lj; (lj = w.at(j)) && parse_nobinary_line(lj->text, &d, &section); ++j) {
			add_excerpt(m, *lj);
			// the report's own lines ("Cannot find CO in the bundle LIB for ISA: ...") carry captures too
			if (m.captures.size() < 64) {
				for (auto &h : km.match(lj->text))
					if (h.entry == sig)
						m.captures.insert(m.captures.end(), h.captures.begin(),
								  h.captures.end());
				km.follows(sig, lj->text, &m.captures);
			}
			w.drop_before(j); // a list of any length in the memory of one line (line i is not used again)
		}
		finish_nobinary(&d);
		// AMD_LOG_LEVEL logs print it per library: fold identical decodes.
		std::string key = fmt::format("{}|{}|{}", sig, joined(d.devices), joined(d.bundled));
		for (const auto &[n, v] : m.captures) // "Cannot find CO in the bundle LIB": one per library
			key += "|" + n + "=" + v;
		m.nobinary = std::move(d);
		if (!fold.repeat(key))
			fold.add(key, std::move(m));
		return j - 1;
	}
	Match m = start(sig, &entry, li);
	m.captures = std::move(hit.captures);
	m.device = core::amdgpu_fault::device_of(t);
	// continuation lines (lists, "Process information:"): within follow_lines of the last one
	for (std::size_t j = i + 1; !entry.follow.empty(); ++j) {
		const LogLine *next = w.at(j);
		if (!next || next->number > m.last_line + entry.follow_lines)
			break;
		if (!km.follows(sig, next->text, &m.captures)) {
			if (!km.match(next->text).empty())
				break;
			continue;
		}
		add_excerpt(m, *next); // a follow line is still read as a line of its own (it may show another entry)
	}
	// a sequence (reset begin ... succeeded, MES failures): the last match of this entry, a few lines back,
	// even with other entries' lines between
	Match *b = entry.group ? fold.last_of(sig) : nullptr;
	if (b && m.first_line - b->last_line <= kWindow) {
		// a repeat of the block's first line counts; another line of the sequence ("GPU reset
		// succeeded" after "GPU reset begin!") only joins it
		if (!b->excerpt.empty() && same_shape(b->excerpt.front(), t))
			++b->count;
		for (const auto &x : m.excerpt)
			if (b->excerpt.size() < kExcerpt)
				b->excerpt.push_back(x);
		b->last_line = m.last_line;
		if (b->captures.size() < 64)
			b->captures.insert(b->captures.end(), m.captures.begin(), m.captures.end());
		return i;
	}
	// identical single-line signatures anywhere in the log: one match, counted
	const std::string key = entry.group ? std::string() : match_key(m);
	if (!fold.repeat(key))
		fold.add(key, std::move(m));
	return i;
}

} // namespace

Matches match_lines(LineSource &src, const knowledge::Matcher &km, std::size_t keep, bool prefiltered)
{
	const auto &base = km.base();
	Fold fold(keep, base.entries.size());
	Window w(src);
	const auto vm_fault = entry_with(base, knowledge::Judge::vm_fault);
	std::vector<std::pair<std::size_t, std::string>> unrecognised;
	std::size_t unrecognised_count = 0;
	for (std::size_t i = 0; w.at(i); ++i) {
		w.drop_before(i);
		const std::string_view t = w.at(i)->text;
		if (!prefiltered && !km.candidate(t))
			continue;
		if (vm_fault && fault_part(t) && t.find("callbacks suppressed") == std::string_view::npos) {
			// each fault of the block takes the VM-fault entry its first line shows ([mmhub] has its own)
			i = fault_block(w, i, fold, *vm_fault, km);
			continue;
		}
		auto hits = km.match(t);
		if (hits.empty()) {
			if (looks_like_error(t) && unrecognised_count++ < 8)
				unrecognised.emplace_back(w.at(i)->number, std::string(t.substr(0, 300)));
			continue;
		}
		// the no-binary report last: it drops the lines it read, line i included
		std::stable_partition(hits.begin(), hits.end(), [&](const knowledge::Hit &h) {
			return base.entries[h.entry].judge != knowledge::Judge::no_binary;
		});
		std::size_t last = i;
		for (auto &hit : hits)
			last = std::max(last, one_hit(w, i, std::move(hit), km, fold));
		i = last;
	}
	Matches out = fold.take();
	out.unrecognised = std::move(unrecognised);
	out.unrecognised_count = unrecognised_count;
	return out;
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

std::vector<Match> match_log(const Log &log, const knowledge::Matcher &km)
{
	LogLines src(log);
	return match_lines(src, km).matches;
}

} // namespace rdnafix::explain
