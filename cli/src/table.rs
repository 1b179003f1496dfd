//! Lists for people: a header, then columns aligned two spaces apart so the eye runs
//! down a column. Scripts read `--json`.

/// Rows under a header; every row has the header's number of cells.
pub struct Table {
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            rows: vec![header.iter().map(|h| (*h).to_owned()).collect()],
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The lines, each cell padded to its column's widest (the last column is not
    /// padded, and a line never ends in spaces).
    pub fn render(&self) -> String {
        let mut widths: Vec<usize> = Vec::new();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate() {
                let width = cell.chars().count();
                match widths.get_mut(i) {
                    Some(w) => *w = (*w).max(width),
                    None => widths.push(width),
                }
            }
        }
        let mut out = String::new();
        for row in &self.rows {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate() {
                if i > 0 {
                    line.push_str("  ");
                }
                line.push_str(cell);
                let pad = widths[i].saturating_sub(cell.chars().count());
                line.extend(std::iter::repeat_n(' ', pad));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_under_the_header() {
        let mut t = Table::new(&["NAME", "STATE", "TITLE"]);
        t.row(vec!["feature/long".into(), "open".into(), "Fix it".into()]);
        t.row(vec!["x".into(), "merged".into(), String::new()]);
        assert_eq!(
            t.render(),
            "NAME          STATE   TITLE\n\
             feature/long  open    Fix it\n\
             x             merged\n"
        );
    }
}
