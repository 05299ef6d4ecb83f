#include "model.hpp"

#include <algorithm>
#include <cstring>

namespace rdnafix::validate {

// ---------------------------------------------------------------- element type
const char *dtype_name(DType t)
{
	return t == DType::f16 ? "f16" : "f32";
}

std::size_t dtype_size(DType t)
{
	return t == DType::f16 ? 2 : 4;
}

std::uint16_t float_to_half(float f)
{
	std::uint32_t x;
	std::memcpy(&x, &f, 4);
	std::uint32_t sign = (x >> 16) & 0x8000u;
	std::uint32_t absx = x & 0x7fffffffu;
	if (absx >= 0x7f800000u) // inf / nan
		return std::uint16_t(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u | ((absx >> 13) & 0x3ffu) : 0));
	if (absx >= 0x477ff000u) // rounds to >= 65520: overflow to inf
		return std::uint16_t(sign | 0x7c00u);
	if (absx < 0x38800000u) {       // result subnormal or zero
		if (absx < 0x33000000u) // < 2^-25: rounds to zero
			return std::uint16_t(sign);
		std::uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
		int shift = 126 - int(absx >> 23); // 14..24 (value = mant * 2^(e-150), half subnormal unit 2^-24)
		std::uint32_t h = mant >> shift;
		std::uint32_t rem = mant & ((1u << shift) - 1);
		std::uint32_t halfway = 1u << (shift - 1);
		if (rem > halfway || (rem == halfway && (h & 1)))
			++h;
		return std::uint16_t(sign | h);
	}
	std::uint32_t h = ((absx >> 13) - (112u << 10)); // rebias 127 -> 15
	std::uint32_t rem = absx & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
		++h;
	return std::uint16_t(sign | h);
}

float half_to_float(std::uint16_t h)
{
	std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
	std::uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ffu, x;
	if (e == 0) {
		if (m == 0) {
			x = sign;
		} else { // subnormal: normalise
			int sh = 0;
			while (!(m & 0x400u)) {
				m <<= 1;
				++sh;
			}
			x = sign | std::uint32_t(113 - sh) << 23 | ((m & 0x3ffu) << 13);
		}
	} else if (e == 31) {
		x = sign | 0x7f800000u | (m << 13);
	} else {
		x = sign | (e + 112) << 23 | (m << 13);
	}
	float f;
	std::memcpy(&f, &x, 4);
	return f;
}

// ---------------------------------------------------------------- memory kind
const char *memkind_name(MemKind k)
{
	switch (k) {
	case MemKind::device:
		return "device";
	case MemKind::host_coherent:
		return "host-coherent";
	case MemKind::host_noncoherent:
		return "host-noncoherent";
	case MemKind::managed:
		return "managed";
	case MemKind::pageable:
		return "pageable";
	}
	return "?";
}

std::optional<MemKind> parse_memkind(const std::string &s)
{
	for (MemKind k :
	     {MemKind::device, MemKind::host_coherent, MemKind::host_noncoherent, MemKind::managed, MemKind::pageable})
		if (s == memkind_name(k))
			return k;
	return std::nullopt;
}

// ---------------------------------------------------------------- conv2d problem
int ConvShape::p() const
{
	return (h + 2 * pad_h - dil_h * (r - 1) - 1) / stride_h + 1;
}

int ConvShape::q() const
{
	return (w + 2 * pad_w - dil_w * (s - 1) - 1) / stride_w + 1;
}

std::size_t ConvShape::x_elems() const
{
	return std::size_t(n) * c * h * w;
}

std::size_t ConvShape::w_elems() const
{
	return std::size_t(k) * (c / std::max(groups, 1)) * r * s;
}

std::size_t ConvShape::y_elems() const
{
	return std::size_t(n) * k * std::max(p(), 0) * std::max(q(), 0);
}

int ConvShape::reduction() const
{
	return (c / std::max(groups, 1)) * r * s;
}

double ConvShape::flops() const
{
	return 2.0 * double(y_elems()) * reduction();
}

double ConvShape::min_bytes(DType t) const
{
	return double(dtype_size(t)) * double(x_elems() + w_elems() + y_elems());
}

namespace {

std::string num(int v)
{
	return std::to_string(v);
}

// "3" when both directions agree, else "3,1".
std::string pair(int a, int b)
{
	return a == b ? num(a) : num(a) + "," + num(b);
}

} // namespace

std::string ConvShape::check() const
{
	struct Field {
		const char *name;
		int v;
		int min;
	};
	const Field fields[] = {{"n", n, 1},
				{"c", c, 1},
				{"h", h, 1},
				{"w", w, 1},
				{"k", k, 1},
				{"r", r, 1},
				{"s", s, 1},
				{"stride_h", stride_h, 1},
				{"stride_w", stride_w, 1},
				{"pad_h", pad_h, 0},
				{"pad_w", pad_w, 0},
				{"dil_h", dil_h, 1},
				{"dil_w", dil_w, 1},
				{"groups", groups, 1}};
	for (const auto &f : fields)
		if (f.v < f.min)
			return "conv2d: " + std::string(f.name) + " = " + num(f.v) + " is invalid (" +
			       (f.min == 0 ? "padding must be >= 0" : "must be >= 1") + ")";
	if (c % groups != 0 || k % groups != 0)
		return "conv2d: groups = " + num(groups) + " must divide c = " + num(c) + " and k = " + num(k);
	if (p() < 1 || q() < 1)
		return "conv2d: output would be empty (" + num(p()) + "x" + num(q()) + "): the " + num(h) + "x" +
		       num(w) + " input with padding " + num(pad_h) + "," + num(pad_w) +
		       " is smaller than the dilated " + num(dil_h * (r - 1) + 1) + "x" + num(dil_w * (s - 1) + 1) +
		       " filter";
	return {};
}

std::string ConvShape::describe() const
{
	return "n" + num(n) + " c" + num(c) + " " + num(h) + "x" + num(w) + " -> k" + num(k) + " " + num(r) + "x" +
	       num(s) + " s" + pair(stride_h, stride_w) + " p" + pair(pad_h, pad_w) + " d" + pair(dil_h, dil_w) + " g" +
	       num(groups) + " (out " + num(p()) + "x" + num(q()) + ")";
}

} // namespace rdnafix::validate
