//! A list read a page at a time (the journal's entries, the gallery's photos): the rows
//! so far, where the next page starts, and which answers still belong to it.
//!
//! Every reload bumps a generation that the request carries and its answer echoes, so a
//! page asked for before the filter changed is dropped instead of mixed in.

use mindsage_core::db::entries::Cursor;

pub struct Paged<T> {
    rows: Vec<T>,
    next: Option<Cursor>,
    /// No further page will be asked for: one came back short, or the list is one page.
    exhausted: bool,
    generation: u64,
    /// A page was asked for and has not arrived.
    loading: bool,
}

impl<T> Default for Paged<T> {
    fn default() -> Paged<T> {
        Paged {
            rows: Vec::new(),
            next: None,
            exhausted: false,
            generation: 0,
            loading: false,
        }
    }
}

impl<T> Paged<T> {
    /// Forgets the rows; answers to earlier requests are ignored from now on.
    pub fn restart(&mut self) {
        self.generation += 1;
        self.rows.clear();
        self.next = None;
        self.exhausted = false;
        self.loading = false;
    }

    /// The next page's generation and start, if one may be asked for now (none is on its
    /// way and the list is not complete); it then counts as on its way.
    pub fn next_request(&mut self) -> Option<(u64, Option<Cursor>)> {
        if self.loading || self.exhausted {
            return None;
        }
        self.loading = true;
        Some((self.generation, self.next.clone()))
    }

    /// A list that is one page only (a shuffle): its generation, counted as on its way.
    pub fn single_request(&mut self) -> u64 {
        self.restart();
        self.loading = true;
        self.exhausted = true;
        self.generation
    }

    /// Adds a page answered for `generation`; returns whether it was current (a stale
    /// answer is dropped). `next` is `None` at the end of the list.
    pub fn on_page(
        &mut self,
        generation: u64,
        rows: impl IntoIterator<Item = T>,
        next: Option<Cursor>,
    ) -> bool {
        if generation != self.generation {
            return false;
        }
        self.loading = false;
        self.exhausted |= next.is_none();
        self.next = next;
        self.rows.extend(rows);
        true
    }

    pub fn rows(&self) -> &[T] {
        &self.rows
    }

    pub fn rows_mut(&mut self) -> &mut [T] {
        &mut self.rows
    }

    /// Whether a page is on its way.
    pub fn loading(&self) -> bool {
        self.loading
    }

    /// Whether every row has arrived.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }
}

#[cfg(test)]
mod tests {
    use super::Paged;
    use mindsage_core::db::entries::Cursor;

    fn cursor(id: i64) -> Option<Cursor> {
        Some(Cursor {
            key: String::new(),
            id,
        })
    }

    #[test]
    fn pages_follow_one_another_and_stale_answers_are_dropped() {
        let mut list = Paged::default();
        let (first, after) = list.next_request().unwrap();
        assert!(after.is_none());
        assert!(list.next_request().is_none(), "one page at a time");
        assert!(list.on_page(first, [1, 2], cursor(2)));
        let (second, after) = list.next_request().unwrap();
        assert_eq!(after.unwrap().id, 2);
        list.restart();
        assert!(!list.on_page(second, [3], None), "asked before the restart");
        assert!(list.rows().is_empty());
        let (third, _) = list.next_request().unwrap();
        assert!(list.on_page(third, [4], None));
        assert!(list.exhausted() && list.next_request().is_none());
        assert_eq!(list.rows(), &[4]);
    }

    #[test]
    fn a_single_page_list_asks_for_nothing_more() {
        let mut list: Paged<i32> = Paged::default();
        let generation = list.single_request();
        assert!(list.on_page(generation, [1], None));
        assert!(list.next_request().is_none());
    }
}
