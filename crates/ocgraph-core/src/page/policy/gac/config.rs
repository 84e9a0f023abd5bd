//! GAC's parameters, with the defaults of seed 001, and their textual form
//! (`gac:decay=0.5:voters=0.1`, as accepted by [`policy_by_name`](super::super::policy_by_name)).

use crate::error::{Error, Result};

/// Which page groups vote (run both policies and update the global score).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Voters {
    /// This many randomly chosen groups (all groups when there are fewer).
    Count(usize),
    /// This fraction (0..=1) of the groups, randomly chosen (at least one).
    Fraction(f64),
}

/// How voter groups decide which policy was right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// Each voter group replays its requests through a CLOCK shadow and a LIFO shadow (keys
    /// only, the group's capacity); a request held by only one shadow is a point for it
    /// (default). Judges both contenders on the same requests when they happen.
    Duel,
    /// Seed 001's rules: ghosts of the active policy's evictions, tags of the fallback's
    /// choices, a win weighted `d^(Tc-Ts)` when disclosed. Loses loops longer than a few group
    /// turnovers (the loop's evidence is disclosed late and decays away).
    Rules,
}

/// Parameters of [`Gac`](super::Gac).
#[derive(Debug, Clone, PartialEq)]
pub struct GacConfig {
    /// Frames per group (victim search stays inside the group). Default 64 (seed 001: 16;
    /// each group of a LIFO-active cache churns its newest frame or two, which at 16 frames
    /// cost 3-6 points of hit ratio against global LIFO in the caching study).
    pub group_size: usize,
    /// Which evidence moves the score. Default [`Evidence::Duel`].
    pub evidence: Evidence,
    /// Ghost entries (pages evicted by the active policy) remembered per group
    /// ([`Evidence::Rules`]). Default 16.
    pub ghosts_per_group: usize,
    /// Voter groups. Default `Count(256)`: 16,384 frames, as many as seed 001's ~1000 voter
    /// groups of 16 frames. (With `Count(1000)` every group of a cache under 256 MiB voted; on the
    /// kron22 traces of the caching study 256 voters gave the same hit ratios at all 55 points
    /// with 26% less extra CPU than CLOCK per simulated miss, 105 ns against 142.)
    pub voters: Voters,
    /// Decay factor `d`: the global score is multiplied by `d` every epoch; with
    /// [`Evidence::Rules`] a win for a choice made at group time `Ts` and disclosed at `Tc`
    /// also counts only `d^(Tc-Ts)`. Default 0.9 (seed 001: 0.7, which at 5% of the pages let
    /// a diameter estimate flip between the policies every few epochs, losing 20 points).
    pub decay: f64,
    /// Misses (all groups) between two decays of the global score; `None` = the frame count
    /// (a cache turnover).
    pub epoch_misses: Option<u64>,
    /// Misses of a voter group per step of its clock (the time unit of a win's decay,
    /// [`Evidence::Rules`]);
    /// `None` = 1. (Slower clocks, such as one step per group turnover, keep long-range evidence
    /// but failed the looping-scan and skew tests.)
    pub time_unit: Option<u64>,
    /// Soft LIFO: evict the second most recently loaded page rather than the most recent, so two
    /// threads sharing a group do not evict each other's current page. Default true.
    pub soft_lifo: bool,
    /// Boundary adjustment: LIFO keeps a page that the kernels report shared by two worker
    /// partitions ([`ReplacementPolicy::set_shared_pages`](super::super::ReplacementPolicy::set_shared_pages))
    /// until it has been requested again after its load (both partitions used it). Default true.
    pub boundary: bool,
    /// Seed of the voter choice. Default 0x9ac.
    pub seed: u64,
    /// Guided LIFO: while LIFO is active and the LIFO shadows hit clearly more than the cache
    /// (see `guide_gap`), evict first the pages that the LIFO shadow of their (voter) group has
    /// dropped, so that the cache comes to hold what the winning shadows hold rather than
    /// freezing what CLOCK left in it. Default true (on 55 traces of the caching study's
    /// kernels: within 2 points of the better of CLOCK and LIFO at 564 of 605 points, against
    /// 546 without; `bench/caching/run.py`).
    pub guided: bool,
    /// Guided LIFO acts once the LIFO shadows have hit this many times the voter groups'
    /// frames more often than the cache (decayed with the score) while LIFO was active.
    /// Default 1.0 (on the same traces 0.5 and 2 gave 559 and 554 of the 605 points; 0, guiding
    /// at once, 536).
    pub guide_gap: f64,
}

impl Default for GacConfig {
    fn default() -> Self {
        GacConfig {
            group_size: 64,
            evidence: Evidence::Duel,
            ghosts_per_group: 16,
            voters: Voters::Count(256),
            decay: 0.9,
            epoch_misses: None,
            time_unit: None,
            soft_lifo: true,
            boundary: true,
            seed: 0x9ac,
            guided: true,
            guide_gap: 1.0,
        }
    }
}

impl GacConfig {
    /// Parses `gac` or `gac:key=value:...` with keys `group`, `ghosts`, `voters` (a count, a
    /// fraction with a `.` such as `0.1`, or `all`), `evidence` (`duel` or `rules`), `decay`,
    /// `epoch`, `unit`, `soft` (0/1), `seed`, `guided` (0/1), `guidegap`, `boundary` (0/1).
    pub fn parse(spec: &str) -> Result<GacConfig> {
        let mut parts = spec.split(':');
        if parts.next() != Some("gac") {
            return Err(Error::invalid(format!("'{spec}' is not a GAC policy spec (gac:key=value:...)")));
        }
        let mut c = GacConfig::default();
        for kv in parts {
            let bad = |what: &str| Error::invalid(format!("GAC option '{kv}' in '{spec}': {what}"));
            let (k, v) = kv.split_once('=').ok_or_else(|| bad("expected key=value"))?;
            let num = |v: &str| v.parse::<u64>().map_err(|_| bad("expected a whole number"));
            match k {
                "group" => c.group_size = num(v)? as usize,
                "ghosts" => c.ghosts_per_group = num(v)? as usize,
                "evidence" if v == "duel" => c.evidence = Evidence::Duel,
                "evidence" if v == "rules" => c.evidence = Evidence::Rules,
                "evidence" => return Err(bad("expected duel or rules")),
                "voters" if v == "all" => c.voters = Voters::Fraction(1.0),
                "voters" if v.contains('.') => {
                    c.voters = Voters::Fraction(v.parse().map_err(|_| bad("expected a fraction"))?)
                }
                "voters" => c.voters = Voters::Count(num(v)? as usize),
                "decay" => c.decay = v.parse().map_err(|_| bad("expected a number"))?,
                "epoch" => c.epoch_misses = Some(num(v)?),
                "unit" => c.time_unit = Some(num(v)?),
                "soft" => c.soft_lifo = num(v)? != 0,
                "seed" => c.seed = num(v)?,
                "guided" => c.guided = num(v)? != 0,
                "guidegap" => c.guide_gap = v.parse().map_err(|_| bad("expected a number"))?,
                "boundary" => c.boundary = num(v)? != 0,
                _ => return Err(bad(
                    "unknown key (group, evidence, ghosts, voters, decay, epoch, unit, soft, seed, guided, \
                     guidegap, boundary)",
                )),
            }
        }
        c.validate()?;
        Ok(c)
    }

    /// Checks the ranges: group size 1..=64, decay in (0, 1], fraction in (0, 1], epoch >= 1,
    /// guide gap >= 0.
    pub fn validate(&self) -> Result<()> {
        if !(1..=64).contains(&self.group_size) {
            return Err(Error::invalid(format!("GAC group size {} must be 1..=64", self.group_size)));
        }
        if !(self.decay > 0.0 && self.decay <= 1.0) {
            return Err(Error::invalid(format!("GAC decay {} must be in (0, 1]", self.decay)));
        }
        if let Voters::Fraction(f) = self.voters {
            if !(f > 0.0 && f <= 1.0) {
                return Err(Error::invalid(format!("GAC voter fraction {f} must be in (0, 1]")));
            }
        }
        if self.time_unit == Some(0) {
            return Err(Error::invalid("GAC time unit must be at least 1 miss"));
        }
        if self.guide_gap.is_nan() || self.guide_gap < 0.0 {
            return Err(Error::invalid(format!("GAC guide gap {} must be >= 0", self.guide_gap)));
        }
        if self.epoch_misses == Some(0) {
            return Err(Error::invalid("GAC epoch must be at least 1 miss"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_specs() {
        assert_eq!(GacConfig::parse("gac").unwrap(), GacConfig::default());
        let c =
            GacConfig::parse("gac:group=8:ghosts=4:voters=0.25:decay=0.5:epoch=100:soft=0:seed=3:guided=0")
                .unwrap();
        assert_eq!(c.group_size, 8);
        assert_eq!(c.ghosts_per_group, 4);
        assert_eq!(c.voters, Voters::Fraction(0.25));
        assert_eq!(c.decay, 0.5);
        assert_eq!(c.epoch_misses, Some(100));
        assert!(!c.soft_lifo);
        assert_eq!(c.seed, 3);
        assert!(!c.guided);
        assert_eq!(GacConfig::parse("gac:guidegap=0.5").unwrap().guide_gap, 0.5);
        assert!(c.boundary && !GacConfig::parse("gac:boundary=0").unwrap().boundary);
        assert_eq!(c.evidence, Evidence::Duel);
        assert_eq!(GacConfig::parse("gac:evidence=rules").unwrap().evidence, Evidence::Rules);
        assert_eq!(GacConfig::parse("gac:voters=12").unwrap().voters, Voters::Count(12));
        assert_eq!(GacConfig::parse("gac:voters=all").unwrap().voters, Voters::Fraction(1.0));
        for bad in [
            "gac:decay=2",
            "gac:group=0",
            "gac:what=1",
            "gac:voters=x",
            "gacx",
            "gac:epoch=0",
            "gac:unit=0",
            "gac:evidence=x",
            "gac:guidegap=-1",
        ] {
            assert!(GacConfig::parse(bad).is_err(), "{bad}");
        }
    }
}
