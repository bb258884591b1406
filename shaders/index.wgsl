// index.wgsl: the index decomposition every kernel uses, written once.
//
// Included with arguments: FN names the function, W is a Walk2 or Walk4
// (params.wgsl) in a uniform, e.g. P.w, and N is the number of operands it
// describes (2, or 4 with N4 set), as in ew_params.wgsl's
// "include index.wgsl FN=walk_pos W=P.w N=4 N4=1".
//
// FN(g) returns, for each operand, the storage position of logical element
// g (row-major over W.shape, W.rank <= 8 axes) relative to the operand's
// element 0. Operand k's stride along axis i is W.st[2k + i/4][i % 4].

// Strides of every operand along axis 4q + r.
fn {{FN}}_st(q: u32, r: u32) -> vec{{N}}<i32> {
//#if N4
    return vec4<i32>({{W}}.st[q][r], {{W}}.st[2u + q][r], {{W}}.st[4u + q][r], {{W}}.st[6u + q][r]);
//#else
    return vec2<i32>({{W}}.st[q][r], {{W}}.st[2u + q][r]);
//#endif
}

fn {{FN}}(g: u32) -> vec{{N}}<i32> {
    if ({{W}}.rank <= 1u) {
        return i32(g) * {{FN}}_st(0u, 0u);
    }
    var p = vec{{N}}<i32>(0);
    var rem = g;
    var ax = {{W}}.rank;
    loop {
        if (ax == 0u) {
            break;
        }
        ax = ax - 1u;
        let q = ax >> 2u;
        let r = ax & 3u;
        let e = {{W}}.shape[q][r];
        let c = i32(rem % e);
        rem = rem / e;
        p = p + c * {{FN}}_st(q, r);
    }
    return p;
}
