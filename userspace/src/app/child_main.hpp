#pragma once
// The entry of rdnactl's internal child processes, apart from the user's
// command line: main() hands argv to child_main() when argv[1] is "__child",
// before CLI11 sees it.  Form: rdnactl __child <case|probe|worker> <request JSON>
// (validate/protocol.hpp).
namespace rdnafix {

// True when argv is an internal child invocation.
bool is_child_invocation(int argc, char **argv);
// Runs the child; returns its exit code (2: malformed invocation).
int child_main(int argc, char **argv);

} // namespace rdnafix
