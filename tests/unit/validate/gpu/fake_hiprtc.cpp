// Fake hiprtc + comgr in one library (mock at the GPU boundary) to test the
// compile isolation: FAKE_HIPRTC_MODE=abort|segv|hang|error|ok decides what
// hiprtcCreateProgram / hiprtcCompileProgram do.  The real hiprtc aborts on
// unknown targets and segfaults without comgr (docs/rocm-facts.md §0, item 3).
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace {
const char *mode()
{
	const char *m = std::getenv("FAKE_HIPRTC_MODE");
	return m ? m : "ok";
}
const char kLog[] = "rdnafix_validate.cu:1:1: error: fake compile error";
} // namespace

extern "C" {
int amd_comgr_get_isa_count(size_t *n)
{
	*n = 2;
	return 0;
}
int amd_comgr_get_isa_name(size_t i, const char **name)
{
	*name = i == 0 ? "amdgcn-amd-amdhsa--gfx1030" : "amdgcn-amd-amdhsa--gfx1100";
	return 0;
}

int hiprtcCreateProgram(void **p, const char *, const char *, int, const char **, const char **)
{
	if (!std::strcmp(mode(), "segv"))
		std::raise(SIGSEGV);
	*p = reinterpret_cast<void *>(0x1);
	return 0;
}
int hiprtcCompileProgram(void *, int, const char **)
{
	if (!std::strcmp(mode(), "abort"))
		std::abort();
	if (!std::strcmp(mode(), "hang"))
		for (;;)
			pause();
	return !std::strcmp(mode(), "error") ? 6 : 0;
}
int hiprtcGetProgramLogSize(void *, size_t *n)
{
	*n = sizeof kLog;
	return 0;
}
int hiprtcGetProgramLog(void *, char *l)
{
	std::memcpy(l, kLog, sizeof kLog);
	return 0;
}
// "ok" returns 16 bytes that are not an ELF: the backend must reject them.
int hiprtcGetCodeSize(void *, size_t *n)
{
	*n = 16;
	return 0;
}
int hiprtcGetCode(void *, char *c)
{
	std::memset(c, 0x42, 16);
	return 0;
}
int hiprtcDestroyProgram(void **)
{
	return 0;
}
const char *hiprtcGetErrorString(int e)
{
	return e == 6 ? "HIPRTC_ERROR_COMPILATION" : "HIPRTC_ERROR";
}
}
