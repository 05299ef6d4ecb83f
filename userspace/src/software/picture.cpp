// software::collect: the coverage scan and the stack of one run.
#include "software/picture.hpp"

#include "io/rootfs.hpp"

#include <exception>

namespace rdnafix::software {

Picture collect(const machine::Snapshot &snap, const PictureOptions &opts)
{
	Picture p;
	if (opts.coverage && !snap.nothing_readable) {
		io::RootFs fs(snap.root);
		p.coverage = coverage::scan(fs, snap, opts.scan);
	}
	if (opts.libload && !snap.nothing_readable) {
		io::RootFs fs(snap.root);
		p.libload = libload::check(fs, snap, p.coverage ? &*p.coverage : nullptr);
	}
	if (opts.stack) {
		try {
			p.stack = validate::collect_stack(snap, opts.stack_options);
		} catch (const std::exception &e) {
			p.stack_error = std::string("cannot collect this machine's stack: ") + e.what();
		}
	}
	return p;
}

} // namespace rdnafix::software
