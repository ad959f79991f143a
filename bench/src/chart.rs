//! The comparison chart: p95 of every timed scenario at each journal size, base vs
//! head, on a log scale (a 0.05 ms list page and a 40 ms purge belong on one chart,
//! and equal ratios should look equal). SVG, so it diffs and renders on any forge.

use std::collections::BTreeSet;
use std::path::Path;

use plotters::prelude::*;

use crate::run::{Measure, Run};

/// Draws the chart into `path`. Returns false (drawing nothing) when neither run has
/// timed scenarios.
pub fn p95_chart(base: &Run, head: &Run, path: &Path) -> anyhow::Result<bool> {
    let timed = |run: &Run| -> Vec<(usize, String, f64)> {
        run.scenarios
            .iter()
            .filter_map(|s| match (&s.measure, s.size) {
                (Measure::Timing { stats, .. }, Some(size)) => Some((size, s.name.clone(), stats.p95_ms)),
                _ => None,
            })
            .collect()
    };
    let (b, h) = (timed(base), timed(head));
    let names: Vec<String> = b
        .iter()
        .chain(&h)
        .map(|(_, n, _)| n.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let sizes: Vec<usize> = b
        .iter()
        .chain(&h)
        .map(|(s, _, _)| *s)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if names.is_empty() {
        return Ok(false);
    }
    let values = b.iter().chain(&h).map(|(_, _, v)| v.max(1e-4));
    let lo = values.clone().fold(f64::INFINITY, f64::min) / 2.0;
    let hi = values.fold(0.0, f64::max) * 2.0;
    let label_px = names.iter().map(|n| n.len()).max().unwrap_or(10) as u32 * 7 + 10;
    let size = (
        (label_px + 320) * sizes.len() as u32,
        90 + 22 * names.len() as u32,
    );

    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "p95 per scenario, ms (log scale): ● {} vs ✕ {}",
        base.label, head.label
    );
    let root = root.titled(&title, ("sans-serif", 18))?;
    let index = |name: &str| names.iter().position(|n| n == name).unwrap_or(0) as i32;
    for (panel, &entries) in root.split_evenly((1, sizes.len())).iter().zip(&sizes) {
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{entries} entries"), ("sans-serif", 14))
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(label_px)
            .build_cartesian_2d((lo..hi).log_scale(), (0..names.len() as i32).into_segmented())?;
        let name_of = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .y_labels(names.len())
            .y_label_formatter(&name_of)
            .x_label_formatter(&|v| format!("{v}"))
            .draw()?;
        let at = |points: &[(usize, String, f64)]| -> Vec<(f64, SegmentValue<i32>)> {
            points
                .iter()
                .filter(|(s, _, _)| *s == entries)
                .map(|(_, n, v)| (v.max(lo), SegmentValue::CenterOf(index(n))))
                .collect()
        };
        chart
            .draw_series(at(&b).into_iter().map(|p| Circle::new(p, 4, BLUE.filled())))?
            .label(format!("base {}", base.label))
            .legend(|(x, y)| Circle::new((x, y), 4, BLUE.filled()));
        chart
            .draw_series(at(&h).into_iter().map(|p| Cross::new(p, 5, RED.stroke_width(2))))?
            .label(format!("head {}", head.label))
            .legend(|(x, y)| Cross::new((x, y), 5, RED.stroke_width(2)));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::tests::fixture;

    #[test]
    fn draws_an_svg_with_every_timed_scenario() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.svg");
        assert!(p95_chart(&fixture(), &fixture(), &path).unwrap());
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"));
        for name in ["list.page1", "list.trash", "write.purge", "5000 entries"] {
            assert!(svg.contains(name), "{name} missing");
        }
    }
}
