// The log reader: text in (in pieces, as it is read), lines out, without the
// prefixes that dmesg, journalctl and /dev/kmsg put in front of the kernel's
// message and HIP's AMD_LOG_LEVEL put in front of its own.  Never fails:
// binary junk is replaced and reported, very long lines are cut; memory
// holds one piece and one line.  Every prefix test looks at a bounded start
// of the line, so a line costs a memchr for its end and what the prefilter
// spends on it.
#include "explain/model.hpp"

#include <cctype>
#include <cstdint>
#include <cstring>

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
	const auto close = s.substr(0, 41).find(']');
	if (close == std::string_view::npos)
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
	if (s.empty() || !(is_digit(s[0]) || s[0] == ','))
		return 0;
	const auto semi = s.substr(0, 65).find(';');
	if (semi == std::string_view::npos)
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
	// the part before must be a timestamp and a host name: starts with a month name or a date
	const bool month = s.size() > 15 && std::isupper(static_cast<unsigned char>(s[0])) && s[3] == ' ' &&
			   s[6] == ' ' && s[9] == ':' && s[12] == ':';
	const bool iso = s.size() > 19 && is_digit(s[0]) && s[4] == '-' && s[7] == '-' && s[10] == 'T';
	if (!month && !iso)
		return 0;
	const auto k = s.substr(0, 96 + 9).find(" kernel: ");
	return k == std::string_view::npos ? 0 : k + 9;
}

// HIP / CLR with AMD_LOG_LEVEL=N (rocclr's ClPrint): ":N:FILE<padding>:LINE<padding>: TIME us: " and
// then, as the version prints it, "PID: [tid:0x…] ", "[pid:PID tid:0x…] " or nothing, e.g.
//   ":1:hip_code_object.cpp      :507 : 221750325580 us: 1255284: [tid:0x7fcc46391bc0]   Devices:"
//   ":3:rocdevice.cpp            :468 : 14902569084 us: [pid:32899 tid:0x71038c239180] Initializing HSA stack."
// The length up to the message (one space after the prefix is its own), 0 when the line is not of
// this form: a level 0-5, numbers of at most 20 digits, a bracket closed within the prefix.
std::size_t hip_prefix(std::string_view s)
{
	if (s.size() < 4 || s[0] != ':' || s[1] < '0' || s[1] > '5' || s[2] != ':')
		return 0;
	s = s.substr(0, 192); // the longest prefix HIP prints is well below
	std::size_t i = 3;
	const auto spaces = [&] {
		while (i < s.size() && s[i] == ' ')
			++i;
	};
	const auto number = [&](std::size_t max) {
		const std::size_t from = i;
		while (i < s.size() && is_digit(s[i]))
			++i;
		return i > from && i - from <= max;
	};
	const auto is_file = [](char c) {
		return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
	};
	const std::size_t file = i;
	while (i < s.size() && is_file(s[i]))
		++i;
	if (i == file)
		return 0;
	spaces();
	if (i >= s.size() || s[i++] != ':' || !number(9))
		return 0;
	spaces();
	if (i >= s.size() || s[i++] != ':')
		return 0;
	spaces();
	if (!number(20) || s.substr(i, 4) != " us:")
		return 0;
	i += 4;
	// "PID:" (CLR of ROCm 5.x)
	if (std::size_t at = i; s.substr(i, 1) == " " && (++i, number(10)) && s.substr(i, 1) == ":")
		++i;
	else
		i = at;
	// "[tid:0x…]", "[pid:PID tid:0x…]", "[pid:PID tid: 0x…]"
	if (s.substr(i, 6) == " [tid:" || s.substr(i, 6) == " [pid:") {
		const auto close = s.find(']', i);
		if (close == std::string_view::npos)
			return 0;
		for (std::size_t k = i + 6; k < close; ++k)
			if (!std::isalnum(static_cast<unsigned char>(s[k])) && s[k] != ' ' && s[k] != ':')
				return 0;
		i = close + 1;
	}
	if (i < s.size() && s[i] == ' ')
		++i;
	return i;
}

bool python_line(std::string_view s)
{
	return s.starts_with("Traceback (most recent call last)") || s.starts_with("  File \"") ||
	       s.find("Error: ") != std::string_view::npos;
}

bool blank(std::string_view s)
{
	return s.find_first_not_of(" \t") == std::string_view::npos;
}

// Control bytes (NUL included, tab not) become '?', in place.  Eight bytes
// at a time: a word without a byte below 0x20 or 0x7f is left as it is.
void replace_controls(std::string &s)
{
	constexpr std::uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	const auto fix = [](char &c) {
		const unsigned char u = static_cast<unsigned char>(c);
		if ((u < 0x20 && u != '\t') || u == 0x7f)
			c = '?';
	};
	char *p = s.data();
	const std::size_t n = s.size();
	std::size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		std::uint64_t w;
		std::memcpy(&w, p + i, 8);
		const std::uint64_t del = w ^ (ones * 0x7f);
		// a byte < 0x20, or a byte equal to 0x7f (exact as a yes/no for the word)
		if ((((w - ones * 0x20) & ~w) | ((del - ones) & ~del)) & highs)
			for (std::size_t k = i; k < i + 8; ++k)
				fix(p[k]);
	}
	for (; i < n; ++i)
		fix(p[i]);
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
		if (blank(raw))
			continue;
		++lines_;
		if (candidate_ && !candidate_(raw))
			continue;
		LogLine l;
		l.number = number_;
		if (raw[0] == ':') {
			if (const auto h = hip_prefix(raw)) {
				l.format = LineFormat::hip;
				raw.remove_prefix(h);
			}
		} else if (const auto k = kmsg_prefix(raw)) {
			l.format = LineFormat::kmsg;
			raw.remove_prefix(k);
		} else if (const auto j = journal_prefix(raw)) {
			l.format = LineFormat::journal;
			raw.remove_prefix(j);
		}
		if (const auto d = l.format == LineFormat::hip ? 0 : dmesg_prefix(raw)) {
			if (l.format == LineFormat::plain)
				l.format = LineFormat::dmesg;
			raw.remove_prefix(d);
		}
		if (l.format == LineFormat::plain && python_line(raw))
			l.format = LineFormat::python;
		if (blank(raw))
			continue;
		l.text.assign(raw.data(), raw.size());
		replace_controls(l.text);
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
