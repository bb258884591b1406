// params.wgsl: the kernels' parameter blocks. GENERATED from the Go
// structs of device/gpucore/params.go by `go generate ./device/gpucore`;
// do not edit.

struct Walk4 {
    rank: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    shape: array<vec4<u32>, 2>,
    st: array<vec4<i32>, 8>,
}

struct Walk2 {
    rank: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    shape: array<vec4<u32>, 2>,
    st: array<vec4<i32>, 4>,
}

struct Params {
    n: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    off: vec4<i32>,
    ex: vec4<u32>,
    w: Walk4,
}

struct RParams {
    nout: u32,
    nred: u32,
    nchunk: u32,
    chunk: u32,
    count: f32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    off: vec4<i32>,
    pst: vec4<i32>,
    kept: Walk2,
    red: Walk2,
}

struct SParams {
    nrows: u32,
    len: u32,
    pad0: u32,
    pad1: u32,
    off: vec4<i32>,
    ax: vec4<i32>,
    ch: vec4<u32>,
    kept: Walk2,
}

struct CParams {
    nitems: u32,
    nin: u32,
    per: u32,
    nout: u32,
}

struct NParams {
    nrows: u32,
    len: u32,
    eps: f32,
    pad0: u32,
    off: vec4<i32>,
    rs: vec4<i32>,
    cs: vec4<i32>,
    aff: vec4<i32>,
}

struct AParams {
    l: u32,
    s: u32,
    e: u32,
    ev: u32,
    scale: f32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    off: vec4<i32>,
    ld: vec4<i32>,
    cs: vec4<i32>,
    dst: vec4<i32>,
}

struct MParams {
    m: u32,
    n: u32,
    k: u32,
    rows: u32,
    a: vec4<i32>,
    b: vec4<i32>,
    c: vec4<i32>,
    base: vec4<u32>,
}

struct XParams {
    n: u32,
    ext: u32,
    inner: u32,
    pad0: u32,
    off: vec4<i32>,
    ax: vec4<i32>,
    w: Walk4,
}

struct NarrowParams {
    n: u32,
    src_off: u32,
    pad0: u32,
    pad1: u32,
}

struct WidenParams {
    n: u32,
    dst_off: u32,
    is_bool: u32,
    src_byte: u32,
}
