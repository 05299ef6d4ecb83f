#pragma once
// core::Anonymizer: consistent pseudonyms for the personal values of a bug
// report (rdnactl report): user names, host names, home directories, serial
// numbers.  Pure: values in, text out.
//
// Each value gets one pseudonym for the whole report ("alice" -> "user1",
// its home "/srv/alice" -> "/home/user1", "mybox" -> "host1",
// "0x2b5a1c7d9e" -> "serial1"), so that two files that named the same user
// still name the same one.  Names and host names are replaced as whole words
// (the characters around a hit are not [A-Za-z0-9_]); homes as whole paths
// (the next character is not [A-Za-z0-9._-]); serial numbers wherever they
// occur.  Values shorter than 2 characters and "root" are never replaced.
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::core {

enum class PersonalKind { user, home, host, serial };

class Anonymizer {
public:
	// Registering a value twice keeps its first pseudonym.  A home is given
	// with its user (the home becomes "/home/<user's pseudonym>").
	void add_user(std::string_view name, std::string_view home = {});
	void add_host(std::string_view name);
	void add_serial(std::string_view value);

	// `text` with every registered value replaced; `hits` (optional) counts
	// replacements per kind.
	[[nodiscard]] std::string apply(std::string_view text,
					std::map<PersonalKind, std::size_t> *hits = nullptr) const;

	// How many values of `kind` are registered.
	[[nodiscard]] std::size_t count(PersonalKind kind) const;
	// The pseudonyms of `kind`, in registration order ("user1", "user2").
	[[nodiscard]] std::vector<std::string> pseudonyms(PersonalKind kind) const;

private:
	struct Rule {
		std::string from, to;
		PersonalKind kind;
	};
	void add(PersonalKind kind, std::string from, std::string to);
	std::string next(std::string_view prefix, PersonalKind kind) const;
	std::vector<Rule> rules_; // applied longest `from` first
};

// "user names", "home directories", "host names", "serial numbers".
std::string_view to_string(PersonalKind kind);

} // namespace rdnafix::core
