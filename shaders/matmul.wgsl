// matmul.wgsl: C[b] = A[b] x B[b] for a batch of matrices read in place.
//
// Each operand is (offset, ld, batch stride, transposed): A(i, p) sits at
// off + b*bs + i*ld + p, or off + b*bs + p*ld + i when transposed (a
// column-major, i.e. transposed, view). C is row-major. A dispatch covers
// rows [row0, row0+rows), all columns from col0, batches from batch0.
//
// Variants: NAIVE (one invocation per output, the baseline), REGBLOCK (each
// invocation computes a 4x4 block from registers; vec4 loads when VEC_A /
// VEC_B say the operand is 16-byte aligned; fast on CPU-like adapters) and
// SHARED (64x64 workgroup tiles staged through workgroup memory; fast on
// GPUs). A_PACKED/B_PACKED/C_PACKED mark F16 (binary16 pairs in u32).
//
// The inner dimension k is looped over inside one invocation, so the host
// never passes a k above mmChunk (matmul.go): drivers stop or kill long
// per-invocation loops (lavapipe ends a shader's loops after 65,535
// iterations in all). A larger k is split into chunks, each a dispatch over
// A[:, k0:k1] and B[k0:k1, :]; the first writes C and later ones run the
// ACCUM variant, which adds its partial product to C (f32 only: an F16
// result is accumulated in an f32 scratch and rounded once by the host).
//#include common.wgsl

@group(0) @binding(0) var<uniform> M: MParams;

//#if C_PACKED
@group(0) @binding(1) var<storage, read_write> C: array<atomic<u32>>;
fn store_c(e: i32, v: f32) {
    let q = u32(e);
    let sh = (q & 1u) * 16u;
    atomicAnd(&C[q >> 1u], ~(0xffffu << sh));
    atomicOr(&C[q >> 1u], f32_to_f16(v) << sh);
}
//#elif VEC_C
@group(0) @binding(1) var<storage, read_write> C: array<vec4<f32>>;
fn store_c(e: i32, v: f32) {
//#if ACCUM
    C[e >> 2u][e & 3] = C[e >> 2u][e & 3] + v;
//#else
    C[e >> 2u][e & 3] = v;
//#endif
}
fn store_c4(e: i32, v: vec4<f32>) {
//#if ACCUM
    C[e >> 2u] = C[e >> 2u] + v;
//#else
    C[e >> 2u] = v;
//#endif
}
//#else
@group(0) @binding(1) var<storage, read_write> C: array<f32>;
fn store_c(e: i32, v: f32) {
//#if ACCUM
    C[e] = C[e] + v;
//#else
    C[e] = v;
//#endif
}
//#endif

//#if A_PACKED
@group(0) @binding(2) var<storage, read> A: array<u32>;
fn a_scalar(e: i32) -> f32 {
    let q = u32(e);
    return f16_to_f32(half_at(A[q >> 1u], q));
}
//#elif VEC_A
@group(0) @binding(2) var<storage, read> A: array<vec4<f32>>;
fn a_scalar(e: i32) -> f32 {
    return A[e >> 2u][e & 3];
}
//#else
@group(0) @binding(2) var<storage, read> A: array<f32>;
fn a_scalar(e: i32) -> f32 {
    return A[e];
}
//#endif

//#if B_PACKED
@group(0) @binding(3) var<storage, read> B: array<u32>;
fn b_scalar(e: i32) -> f32 {
    let q = u32(e);
    return f16_to_f32(half_at(B[q >> 1u], q));
}
//#elif VEC_B
@group(0) @binding(3) var<storage, read> B: array<vec4<f32>>;
fn b_scalar(e: i32) -> f32 {
    return B[e >> 2u][e & 3];
}
//#else
@group(0) @binding(3) var<storage, read> B: array<f32>;
fn b_scalar(e: i32) -> f32 {
    return B[e];
}
//#endif

// Four consecutive elements starting at e (a multiple of 4 when VEC_*).
fn a_vec(e: i32) -> vec4<f32> {
//#if VEC_A
    return A[e >> 2u];
//#else
    return vec4<f32>(a_scalar(e), a_scalar(e + 1), a_scalar(e + 2), a_scalar(e + 3));
//#endif
}

fn b_vec(e: i32) -> vec4<f32> {
//#if VEC_B
    return B[e >> 2u];
//#else
    return vec4<f32>(b_scalar(e), b_scalar(e + 1), b_scalar(e + 2), b_scalar(e + 3));
//#endif
}

// Storage position of A(i, p) and B(p, j) in batch bt.
fn a_pos(bt: u32, i: u32, p: u32) -> i32 {
    let base = M.a.x + i32(bt) * M.a.z;
//#if TRANS_A
    return base + i32(p) * M.a.y + i32(i);
//#else
    return base + i32(i) * M.a.y + i32(p);
//#endif
}

fn b_pos(bt: u32, p: u32, j: u32) -> i32 {
    let base = M.b.x + i32(bt) * M.b.z;
//#if TRANS_B
    return base + i32(j) * M.b.y + i32(p);
//#else
    return base + i32(p) * M.b.y + i32(j);
//#endif
}

fn c_pos(bt: u32, i: u32, j: u32) -> i32 {
    return M.c.x + i32(bt) * M.c.z + i32(i) * M.c.y + i32(j);
}

// A(i, p) and B(p, j) with indices clamped into the matrix and zero past
// the inner dimension, for edge tiles.
fn a_safe(bt: u32, i: u32, p: u32) -> f32 {
    let v = a_scalar(a_pos(bt, min(i, M.m - 1u), min(p, M.k - 1u)));
    return select(0.0, v, p < M.k);
}

fn b_safe(bt: u32, p: u32, j: u32) -> f32 {
    let v = b_scalar(b_pos(bt, min(p, M.k - 1u), min(j, M.n - 1u)));
    return select(0.0, v, p < M.k);
}

//#if NAIVE
@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j = M.base.z + gid.x;
    let i = M.base.x + gid.y;
    let bt = M.base.y + gid.z;
    if (j >= M.n || i >= M.base.x + M.rows || i >= M.m) {
        return;
    }
    var acc = 0.0;
    for (var p = 0u; p < M.k; p = p + 1u) {
        acc = acc + a_scalar(a_pos(bt, i, p)) * b_scalar(b_pos(bt, p, j));
    }
    store_c(c_pos(bt, i, j), acc);
}
//#endif

//#if REGBLOCK
// A 4x4 block as a matrix whose column r holds A(i0+r, p..p+3).
fn a_block(bt: u32, i0: u32, p: u32) -> mat4x4<f32> {
//#if TRANS_A
    let e = a_pos(bt, i0, p);
    let ld = M.a.y;
    return transpose(mat4x4<f32>(a_vec(e), a_vec(e + ld), a_vec(e + 2 * ld), a_vec(e + 3 * ld)));
//#else
    let e = a_pos(bt, i0, p);
    let ld = M.a.y;
    return mat4x4<f32>(a_vec(e), a_vec(e + ld), a_vec(e + 2 * ld), a_vec(e + 3 * ld));
//#endif
}

// A 4x4 block as a matrix whose column q holds B(p+q, j0..j0+3).
fn b_block(bt: u32, p: u32, j0: u32) -> mat4x4<f32> {
//#if TRANS_B
    let e = b_pos(bt, p, j0);
    let ld = M.b.y;
    return transpose(mat4x4<f32>(b_vec(e), b_vec(e + ld), b_vec(e + 2 * ld), b_vec(e + 3 * ld)));
//#else
    let e = b_pos(bt, p, j0);
    let ld = M.b.y;
    return mat4x4<f32>(b_vec(e), b_vec(e + ld), b_vec(e + 2 * ld), b_vec(e + 3 * ld));
//#endif
}

fn safe_step(bt: u32, i0: u32, j0: u32, p: u32) -> mat4x4<f32> {
    var am: mat4x4<f32>;
    var bm: mat4x4<f32>;
    for (var r = 0u; r < 4u; r = r + 1u) {
        am[r] = vec4<f32>(a_safe(bt, i0 + r, p), a_safe(bt, i0 + r, p + 1u), a_safe(bt, i0 + r, p + 2u), a_safe(bt, i0 + r, p + 3u));
        bm[r] = vec4<f32>(b_safe(bt, p + r, j0), b_safe(bt, p + r, j0 + 1u), b_safe(bt, p + r, j0 + 2u), b_safe(bt, p + r, j0 + 3u));
    }
    return bm * am;
}

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let j0 = M.base.z + gid.x * 4u;
    let i0 = M.base.x + gid.y * 4u;
    let bt = M.base.y + gid.z;
    let rowEnd = min(M.base.x + M.rows, M.m);
    if (j0 >= M.n || i0 >= rowEnd) {
        return;
    }
    var acc = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    let k4 = M.k & ~3u;
    if (i0 + 3u < M.m && j0 + 3u < M.n) {
        for (var p = 0u; p < k4; p = p + 4u) {
            acc = acc + b_block(bt, p, j0) * a_block(bt, i0, p);
        }
        if (k4 < M.k) {
            acc = acc + safe_step(bt, i0, j0, k4);
        }
    } else {
        for (var p = 0u; p < M.k; p = p + 4u) {
            acc = acc + safe_step(bt, i0, j0, p);
        }
    }
    for (var r = 0u; r < 4u; r = r + 1u) {
        let i = i0 + r;
        if (i < rowEnd) {
            let e = c_pos(bt, i, j0);
//#if VEC_C
            if (j0 + 3u < M.n) {
                store_c4(e, acc[r]);
                continue;
            }
//#endif
            for (var c = 0u; c < 4u; c = c + 1u) {
                if (j0 + c < M.n) {
                    store_c(e + i32(c), acc[r][c]);
                }
            }
        }
    }
}
//#endif

//#if SHARED
// 64x64 output tile per 16x16 workgroup, 4x4 per invocation; K in steps
// of 16 staged through workgroup memory (As holds A transposed).
var<workgroup> As: array<f32, 1024>;
var<workgroup> Bs: array<f32, 1024>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let tileI = M.base.x + wid.y * 64u;
    let tileJ = M.base.z + wid.x * 64u;
    let bt = M.base.y + wid.z;
    let rowEnd = min(M.base.x + M.rows, M.m);
    var acc: array<vec4<f32>, 4>;
    for (var r = 0u; r < 4u; r = r + 1u) {
        acc[r] = vec4<f32>(0.0);
    }
    for (var p0 = 0u; p0 < M.k; p0 = p0 + 16u) {
        // 256 invocations load 1024 elements of each tile.
        for (var t = 0u; t < 4u; t = t + 1u) {
            let idx = li + t * 256u;
            let q = idx / 64u;
            let x = idx % 64u;
            As[q * 64u + x] = a_safe(bt, tileI + x, p0 + q);
            Bs[q * 64u + x] = b_safe(bt, p0 + q, tileJ + x);
        }
        workgroupBarrier();
        for (var q = 0u; q < 16u; q = q + 1u) {
            let ab = q * 64u + lid.y * 4u;
            let bb = q * 64u + lid.x * 4u;
            let av = vec4<f32>(As[ab], As[ab + 1u], As[ab + 2u], As[ab + 3u]);
            let bv = vec4<f32>(Bs[bb], Bs[bb + 1u], Bs[bb + 2u], Bs[bb + 3u]);
            acc[0] = acc[0] + av.x * bv;
            acc[1] = acc[1] + av.y * bv;
            acc[2] = acc[2] + av.z * bv;
            acc[3] = acc[3] + av.w * bv;
        }
        workgroupBarrier();
    }
    let j0 = tileJ + lid.x * 4u;
    for (var r = 0u; r < 4u; r = r + 1u) {
        let i = tileI + lid.y * 4u + r;
        if (i < rowEnd) {
            for (var c = 0u; c < 4u; c = c + 1u) {
                if (j0 + c < M.n) {
                    store_c(c_pos(bt, i, j0 + c), acc[r][c]);
                }
            }
        }
    }
}
//#endif
