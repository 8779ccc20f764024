fn main() {
    let mut a = std::env::args().skip(1);
    let path = a.next().unwrap();
    let seed: u64 = a.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let text = std::fs::read_to_string(&path).unwrap();
    let m = rxla_ir::parse_module(&text, &path).unwrap();
    let args = rxla_fuzzgen::random_args(&m, seed);
    for (i, x) in args.iter().enumerate() {
        println!("// arg {i}: {}", x.to_text());
    }
    let want = rxla_fuzzgen::oracles::eval(&m, &args);
    println!("// want: {:?}", want.map(|w| w.to_text()));
    let exe = rxla_jit::compile(&m, &rxla_fuzzgen::oracles::jit::options()).unwrap();
    println!("// got: {}", exe.run(&args).unwrap().to_text());
}
