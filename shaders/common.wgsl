// common.wgsl: helpers shared by every tessera kernel.
//
// Float classification works on the bit pattern: some drivers (lavapipe
// among them) fold comparisons as if NaN did not exist, so x != x cannot be
// trusted to find a NaN.
//
// The parameter blocks every kernel's uniform uses are generated from Go
// (device/gpucore/params.go) into params.wgsl.
//#include params.wgsl

fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

fn is_inf(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}

fn f32_nan() -> f32 {
    return bitcast<f32>(0x7fc00000u);
}

fn f32_inf() -> f32 {
    return bitcast<f32>(0x7f800000u);
}

// The linear index of a workgroup in a grid that may be folded into 2-D or
// 3-D because one dimension is limited to maxComputeWorkgroupsPerDimension.
fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return (wid.z * nwg.y + wid.y) * nwg.x + wid.x;
}

// Widens binary16 bits (low 16 bits of h) to f32 exactly, subnormals
// included, without relying on the driver's half-float support.
fn f16_to_f32(h: u32) -> f32 {
    let sign = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if (e == 0x1fu) {
        return bitcast<f32>(sign | 0x7f800000u | (m << 13u));
    }
    if (e == 0u) {
        let v = f32(m) * 5.9604644775390625e-8;
        return select(v, -v, sign != 0u);
    }
    return bitcast<f32>(sign | ((e + 112u) << 23u) | (m << 13u));
}

// Rounds f32 to binary16 bits, ties to even; overflow gives infinity and
// NaN stays a quiet NaN. Done in integer arithmetic so every device rounds
// the same way.
fn f32_to_f16(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    let sign = (b >> 16u) & 0x8000u;
    let a = b & 0x7fffffffu;
    if (a > 0x7f800000u) {
        return sign | 0x7e00u | ((a >> 13u) & 0x3ffu);
    }
    if (a >= 0x477ff000u) {
        return sign | 0x7c00u;
    }
    if (a >= 0x38800000u) {
        let r = a - 0x38000000u;
        let lsb = (r >> 13u) & 1u;
        return sign | ((r + 0x0fffu + lsb) >> 13u);
    }
    if (a <= 0x33000000u) {
        return sign;
    }
    let e = a >> 23u;
    let m = (a & 0x7fffffu) | 0x800000u;
    let shift = 126u - e;
    let q = m >> shift;
    let rem = m & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    var r = q;
    if (rem > half || (rem == half && (q & 1u) == 1u)) {
        r = r + 1u;
    }
    return sign | r;
}

// The binary16 element at position p of a buffer of packed u32 pairs.
fn half_at(word: u32, p: u32) -> u32 {
    return (word >> ((p & 1u) * 16u)) & 0xffffu;
}
