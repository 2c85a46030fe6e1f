use partita_synth::experiment::{random_set, Rng};
use partita_synth::*;
fn main() {
    let u: f64 = std::env::args().nth(1).unwrap().parse().unwrap();
    let mut rng = Rng::new(1);
    let p = Params::default();
    for n in 0..20 {
        let set = random_set(&mut rng, u, n % 2 == 0);
        let parts: Vec<&PartitionTasks> = set.partitions.iter().collect();
        let f = set.major_frame();
        let a = gen::edf(&parts, f, &p, false).map(|t| t.windows.len());
        let b = gen::edf(&parts, f, &p, true).map(|t| t.windows.len());
        let c = gen::seed(&parts, f, &p).map(|t| t.windows.len());
        let d = prm::table(&parts, f, &p).map(|t| t.windows.len());
        println!(
            "{n} h={} np {:?} p {:?} seed {:?} prm {:?}",
            n % 2 == 0,
            a,
            b,
            c,
            d
        );
    }
}
