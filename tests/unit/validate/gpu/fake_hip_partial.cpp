// Fake libamdhip64 that lacks most entry points: the loader must refuse it
// and name the missing symbols.  (Mock at the GPU boundary.)
extern "C" {
int hipInit(unsigned)
{
	return 0;
}
int hipGetDeviceCount(int *n)
{
	*n = 1;
	return 0;
}
}
