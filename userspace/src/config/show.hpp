#pragma once
// `rdnactl config show`: every managed key with its configured value (file
// and line), the value the next boot will use and the live value.
#include <ostream>
#include <string>

namespace rdnafix::config {

struct ShowOptions {
	std::string root = "/";
	bool json = false;
};

// 0 shown; 1 a conflict keeps a configured value from taking effect; 2 the
// root cannot be read.
int show_config(const ShowOptions &o, std::ostream &out, std::ostream &err);

} // namespace rdnafix::config
