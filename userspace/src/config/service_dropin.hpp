#pragma once
// The drop-in rdnactl owns for rdnafix-validate.service,
// /etc/systemd/system/rdnafix-validate.service.d/50-rdnactl.conf: the key
// validate.user (the user the validation runs as), the check of that name
// against the root's /etc/passwd, and the file's text.  Pure.
//
// Rendered form (no user: the file is deleted, and the unit's
// ConditionPathExists= keeps it from starting):
//   # Managed by rdnactl (rdnafix). Edit with 'rdnactl config'.
//   # 'rdnactl config undo' restores the previous version.
//   [Service]
//   User=alice
//   SupplementaryGroups=render video      (those of the two the root's /etc/group has)
// /dev/kfd and the render nodes belong to group render, the card nodes to
// video (udev's 50-udev-default.rules): with both, the service reaches the
// GPU whether or not the user is in those groups.  A line rdnactl did not
// write is foreign: the file is not rewritten (as with the modprobe.d file).
#include "config/owned_file.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::config {

inline constexpr std::string_view kValidateUserKey = "validate.user";
inline constexpr std::string_view kValidateUnit = "rdnafix-validate.service";
inline constexpr std::string_view kValidateDropin = "etc/systemd/system/rdnafix-validate.service.d/50-rdnactl.conf";
inline constexpr std::string_view kPasswdFile = "etc/passwd";
inline constexpr std::string_view kGroupFile = "etc/group";

struct ValidateDropin {
	std::optional<std::string> user; // User=
	std::vector<std::string> groups; // SupplementaryGroups=
	std::vector<OwnedLine> foreign;  // lines rdnactl will not rewrite
	std::vector<OwnedLine> comments; // comments other than rdnactl's header
};
ValidateDropin parse_validate_dropin(std::string_view text);

// nullopt (delete the file) without a user.
std::optional<std::string> render_validate_dropin(const std::optional<std::string> &user,
						  const std::vector<std::string> &groups);

// Why `name` cannot be validate.user, or nullopt: it must be a user name
// (letters, digits, _ . -, not starting with - or a digit, at most 32
// characters) that `passwd` (the text of the root's etc/passwd, named
// `where` in the message) lists, and neither root (uid 0) nor nobody (uid 65534).
std::optional<std::string> check_validate_user(std::string_view name, std::string_view passwd, std::string_view where);

// The device groups of the drop-in that `group` (the text of etc/group) has: render, video.
std::vector<std::string> device_groups(std::string_view group);

// What the user does next after the drop-in changed (a note, like the
// reboot note of module options): systemd reads drop-ins at daemon-reload.
std::string validate_dropin_note(bool user_set);

} // namespace rdnafix::config
