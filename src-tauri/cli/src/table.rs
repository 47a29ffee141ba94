//! Plain-text tables for list commands: columns padded to their widest cell, the last one free.

/// Prints `header` and `rows`, two spaces between columns.
pub(crate) fn print<const N: usize>(header: [&str; N], rows: &[[String; N]]) {
    // Cells may hold text from models and tools: no control character reaches the terminal.
    let rows: Vec<[String; N]> = rows
        .iter()
        .map(|row| {
            row.each_ref()
                .map(|cell| crate::escape::for_terminal(cell).into_owned())
        })
        .collect();
    let mut widths = header.map(|cell| cell.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; N]| {
        let mut text = String::new();
        for (index, (cell, width)) in cells.iter().zip(widths).enumerate() {
            if index + 1 == N {
                text.push_str(cell);
            } else {
                text.push_str(&format!("{cell:<width$}  "));
            }
        }
        println!("{text}");
    };
    line(header);
    for row in &rows {
        line(row.each_ref().map(String::as_str));
    }
}
