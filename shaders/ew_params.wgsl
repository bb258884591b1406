// ew_params.wgsl: the uniform every elementwise kernel reads.
//
// Up to four operands (0 = destination, 1..3 = sources) share one logical
// shape of rank <= 8 (the host splits higher ranks into several
// dispatches). Operand k's stride along axis i is st[2k + i/4][i%4];
// its storage position of element 0 is off[k]. Positions are relative to the
// start of the operand's binding window.
struct Params {
    n: u32,
    rank: u32,
    pad0: u32,
    pad1: u32,
    shape: array<vec4<u32>, 2>,
    off: vec4<i32>,
    st: array<vec4<i32>, 8>,
    ex: vec4<u32>,
}

@group(0) @binding(0) var<uniform> P: Params;

// Storage positions of logical element g (row-major order) in all operands.
fn positions(g: u32) -> vec4<i32> {
    if (P.rank <= 1u) {
        return P.off + i32(g) * vec4<i32>(P.st[0].x, P.st[2].x, P.st[4].x, P.st[6].x);
    }
    var p = P.off;
    var rem = g;
    var ax = P.rank;
    loop {
        if (ax == 0u) {
            break;
        }
        ax = ax - 1u;
        let q = ax >> 2u;
        let r = ax & 3u;
        let e = P.shape[q][r];
        let c = i32(rem % e);
        rem = rem / e;
        p = p + c * vec4<i32>(P.st[q][r], P.st[2u + q][r], P.st[4u + q][r], P.st[6u + q][r]);
    }
    return p;
}
