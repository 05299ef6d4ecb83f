#pragma once
// What runs inside validate's internal children (the child entries of the
// protocol in protocol.hpp; app/child_main.cpp dispatches to them).  Each
// replies with one JSON object on fd 3 and returns the process exit code.
#include "protocol.hpp"

namespace rdnafix::validate {

// Runs one case: its kind's host half and judge.  Unknown case: message on
// stderr, exit 2, no reply.
int case_child_main(const CaseRequest &req);
// Probes the GPU runtime (HIP, then CUDA, unless req.api names one).
int probe_child_main(const ProbeRequest &req);
// The worker: reads one request per line from fd 0 until EOF, answers each
// (the entries above) followed by io::kReplyEnd on fd 3.  A request whose
// entry returns non-zero ends the worker with that exit code, as it would
// have ended a one-shot child; a malformed request line ends it with 2.
int worker_child_main();

} // namespace rdnafix::validate
