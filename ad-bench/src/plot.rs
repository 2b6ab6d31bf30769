//! A log-log line plot written directly as SVG (no plotting or font libraries): time against
//! n for each mode, like Figure 6.5 of seed `004`.

use std::fmt::Write;

/// One line of the plot: a label and its (n, seconds) points.
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

const COLORS: [&str; 8] = [
    "#000000", "#1f77b4", "#7fb3e0", "#d62728", "#f4a6a6", "#2ca02c", "#9467bd", "#8c564b",
];
const DASHED: [bool; 8] = [false, false, true, false, true, false, false, false];

/// The SVG text of a log-log plot of the series.
pub fn log_log_svg(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    let (width, height) = (760.0, 500.0);
    let (left, right, top, bottom) = (80.0, 220.0, 40.0, 60.0);
    let all = series.iter().flat_map(|s| s.points.iter());
    let (mut x_min, mut x_max, mut y_min, mut y_max) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in all {
        x_min = x_min.min(x.log10());
        x_max = x_max.max(x.log10());
        y_min = y_min.min(y.log10());
        y_max = y_max.max(y.log10());
    }
    let (x_min, x_max) = (x_min.floor(), x_max.ceil().max(x_min.floor() + 1.0));
    let (y_min, y_max) = (y_min.floor(), y_max.ceil().max(y_min.floor() + 1.0));
    let plot_w = width - left - right;
    let plot_h = height - top - bottom;
    let px = |x: f64| left + (x.log10() - x_min) / (x_max - x_min) * plot_w;
    let py = |y: f64| top + (y_max - y.log10()) / (y_max - y_min) * plot_h;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        svg,
        r#"<rect width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{title}</text>"#,
        left + plot_w / 2.0
    );
    for decade in (x_min as i32)..=(x_max as i32) {
        let x = px(10f64.powi(decade));
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{:.1}" stroke="#ddd"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">1e{decade}</text>"##,
            top + plot_h,
            top + plot_h + 18.0
        );
    }
    for decade in (y_min as i32)..=(y_max as i32) {
        let y = py(10f64.powi(decade));
        let _ = writeln!(
            svg,
            r##"<line x1="{left}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">1e{decade}</text>"##,
            left + plot_w,
            left - 6.0,
            y + 4.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{x_label}</text>"#,
        left + plot_w / 2.0,
        height - 15.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">{y_label}</text>"#,
        top + plot_h / 2.0,
        top + plot_h / 2.0
    );
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let dash = if DASHED[i % DASHED.len()] {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        let points: Vec<String> = s
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ = writeln!(
            svg,
            r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"{dash}/>"#,
            points.join(" ")
        );
        for &(x, y) in &s.points {
            let _ = writeln!(
                svg,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{color}"/>"#,
                px(x),
                py(y)
            );
        }
        let legend_y = top + 14.0 + 20.0 * i as f64;
        let legend_x = left + plot_w + 15.0;
        let _ = writeln!(
            svg,
            r#"<line x1="{legend_x}" y1="{legend_y}" x2="{:.1}" y2="{legend_y}" stroke="{color}" stroke-width="2"{dash}/><text x="{:.1}" y="{:.1}">{}</text>"#,
            legend_x + 24.0,
            legend_x + 30.0,
            legend_y + 4.0,
            s.label
        );
    }
    svg.push_str("</svg>\n");
    svg
}
