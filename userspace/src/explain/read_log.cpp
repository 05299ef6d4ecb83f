// The log reader: text in (in pieces, as it is read), lines out, without the
// prefixes that dmesg, journalctl and /dev/kmsg put in front of the kernel's
// message.  Never fails: binary junk is replaced and reported, very long
// lines are cut; memory holds one piece and one line.
#include "explain/model.hpp"

#include <cctype>

#include <fmt/format.h>

namespace rdnafix::explain {

namespace {

constexpr std::size_t kMaxLine = 64 * 1024; // longer lines are cut (and reported)
constexpr std::size_t kProbe = 64 * 1024;   // the bytes that decide whether the input is text

bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

// "[  283.724128] " (dmesg) or "[Mon Nov 24 10:00:00 2025] " (dmesg -T): the length, 0 when none.
std::size_t dmesg_prefix(std::string_view s)
{
	if (s.empty() || s[0] != '[')
		return 0;
	const auto close = s.find(']');
	if (close == std::string_view::npos || close > 40)
		return 0;
	const std::string_view in = s.substr(1, close - 1);
	bool dotted = false, digits = false, ctime = in.size() >= 20 && in.find(':') != std::string_view::npos;
	for (char c : in) {
		if (is_digit(c))
			digits = true;
		else if (c == '.')
			dotted = true;
		else if (c != ' ' && !ctime)
			return 0;
	}
	if (!(digits && (dotted || ctime)))
		return 0;
	std::size_t n = close + 1;
	if (n < s.size() && s[n] == ' ')
		++n;
	return n;
}

// "<prio>,<seq>,<usec>,<flags>;" (/dev/kmsg, `dmesg -r` style records).
std::size_t kmsg_prefix(std::string_view s)
{
	const auto semi = s.find(';');
	if (semi == std::string_view::npos || semi > 64)
		return 0;
	int commas = 0;
	for (std::size_t i = 0; i < semi; ++i) {
		if (s[i] == ',')
			++commas;
		else if (!is_digit(s[i]) && !(commas >= 3 && (s[i] == '-' || s[i] == 'c' || s[i] == '+')))
			return 0;
	}
	return commas >= 3 ? semi + 1 : 0;
}

// journalctl: "Jan 09 18:55:45 host kernel: " or "2024-08-18T01:19:27.141093+00:00 host kernel: ".
std::size_t journal_prefix(std::string_view s)
{
	const auto k = s.find(" kernel: ");
	if (k == std::string_view::npos || k > 96)
		return 0;
	// the part before must be a timestamp and a host name: starts with a month name or a date
	const bool month = s.size() > 15 && std::isupper(static_cast<unsigned char>(s[0])) && s[3] == ' ' &&
			   s[6] == ' ' && s[9] == ':' && s[12] == ':';
	const bool iso = s.size() > 19 && is_digit(s[0]) && s[4] == '-' && s[7] == '-' && s[10] == 'T';
	if (!month && !iso)
		return 0;
	return k + 9;
}

bool python_line(std::string_view s)
{
	return s.starts_with("Traceback (most recent call last)") || s.starts_with("  File \"") ||
	       s.find("Error: ") != std::string_view::npos;
}

} // namespace

// The next line of the input without its '\n' (and '\r'), and its whole
// length (`raw` holds at most kMaxLine + 1 bytes of a longer one); false at
// the end.
bool LogReader::take_line(std::string_view *raw, std::size_t *length)
{
	partial_.clear();
	partial_len_ = 0;
	partial_cr_ = false;
	for (;;) {
		if (piece_.empty() && !end_) {
			piece_ = pieces_();
			end_ = piece_.empty();
			bytes_ += piece_.size();
			for (std::size_t i = 0; probed_ < kProbe && i < piece_.size(); ++i, ++probed_) {
				const unsigned char c = static_cast<unsigned char>(piece_[i]);
				if (c == 0)
					++nul_;
				else if (c < 0x20 && c != '\n' && c != '\r' && c != '\t')
					++controls_;
			}
		}
		if (end_) {
			if (partial_len_ == 0)
				return false;
			break;
		}
		const auto nl = piece_.find('\n');
		const std::string_view part = piece_.substr(0, nl);
		if (nl != std::string_view::npos && partial_len_ == 0) {
			// the whole line is in this piece: no copy
			piece_.remove_prefix(nl + 1);
			*raw = part;
			*length = part.size();
			if (!part.empty() && part.back() == '\r') {
				raw->remove_suffix(1);
				--*length;
			}
			return true;
		}
		if (partial_.size() <= kMaxLine)
			partial_.append(part.substr(0, kMaxLine + 1 - partial_.size()));
		partial_len_ += part.size();
		if (!part.empty())
			partial_cr_ = part.back() == '\r';
		if (nl == std::string_view::npos) {
			piece_ = {};
			continue;
		}
		piece_.remove_prefix(nl + 1);
		break;
	}
	*raw = partial_;
	*length = partial_len_;
	if (partial_cr_) {
		if (raw->size() == partial_len_)
			raw->remove_suffix(1);
		--*length;
	}
	return true;
}

std::optional<LogLine> LogReader::next()
{
	std::string_view raw;
	std::size_t length = 0;
	while (take_line(&raw, &length)) {
		++number_;
		if (length > kMaxLine) {
			if (cut_++ < 3)
				cut_notes_.push_back(fmt::format("line {}: {} bytes, only the first {} were read",
								 number_, length, kMaxLine));
			raw = raw.substr(0, kMaxLine);
		}
		LogLine l;
		l.number = number_;
		if (const auto k = kmsg_prefix(raw)) {
			l.format = LineFormat::kmsg;
			raw.remove_prefix(k);
		} else if (const auto j = journal_prefix(raw)) {
			l.format = LineFormat::journal;
			raw.remove_prefix(j);
		}
		if (const auto d = dmesg_prefix(raw)) {
			if (l.format == LineFormat::plain)
				l.format = LineFormat::dmesg;
			raw.remove_prefix(d);
		}
		if (l.format == LineFormat::plain && python_line(raw))
			l.format = LineFormat::python;
		if (raw.find_first_not_of(" \t") == std::string_view::npos)
			continue;
		l.text.reserve(raw.size());
		for (char c : raw) {
			const unsigned char u = static_cast<unsigned char>(c);
			l.text.push_back(u == 0 || (u < 0x20 && c != '\t') || u == 0x7f ? '?' : c);
		}
		++lines_;
		return l;
	}
	return std::nullopt;
}

Log LogReader::summary() const
{
	Log log;
	log.bytes = bytes_;
	if (probed_ > 0 && (nul_ + controls_) * 10 > probed_) {
		log.binary = true;
		log.problems.push_back(fmt::format("the input looks binary ({} NUL and {} other control bytes in the "
						   "first {} bytes); text lines in it were still read",
						   nul_, controls_, probed_));
	}
	log.problems.insert(log.problems.end(), cut_notes_.begin(), cut_notes_.end());
	if (cut_ > 3)
		log.problems.push_back(
			fmt::format("{} more lines were longer than {} bytes and were cut", cut_ - 3, kMaxLine));
	if (bytes_ == 0)
		log.problems.push_back("the input is empty");
	return log;
}

Log read_log(std::string_view text)
{
	bool given = false;
	LogReader reader([&]() -> std::string_view {
		if (given)
			return {};
		given = true;
		return text;
	});
	std::vector<LogLine> lines;
	while (auto l = reader.next())
		lines.push_back(std::move(*l));
	Log log = reader.summary();
	log.lines = std::move(lines);
	return log;
}

} // namespace rdnafix::explain
