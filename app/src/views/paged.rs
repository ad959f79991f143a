//! A list read a page at a time (the journal's entries, the gallery's photos): the rows
//! so far, where the next page starts, and which answers still belong to it.
//!
//! Every reload bumps a generation that the request carries and its answer echoes, so a
//! page asked for before the filter changed is dropped instead of mixed in.
//!
//! A long list keeps in memory only the pages near what is on screen: a page scrolled
//! far away is forgotten, its place and where it starts kept, and is read again when
//! it comes back into view ([`Paged::forget_outside`], [`Paged::refill_request`]). A
//! scroll through 50,000 entries then holds a few thousand rows, not 50,000.

use std::ops::Range;

use mindsage_core::db::entries::Cursor;

pub struct Paged<T> {
    /// The pages so far, in order.
    pages: Vec<Page<T>>,
    /// Rows before each page: `starts[i]` is page `i`'s first row.
    starts: Vec<usize>,
    next: Option<Cursor>,
    /// No further page will be asked for: one came back short, or the list is one page.
    exhausted: bool,
    generation: u64,
    /// A page was asked for and has not arrived.
    loading: bool,
    /// The forgotten page being read again, when that is the page on its way.
    refilling: Option<usize>,
}

/// One page of rows: where it starts, how many it had, and its rows unless forgotten.
struct Page<T> {
    after: Option<Cursor>,
    len: usize,
    rows: Option<Vec<T>>,
}

impl<T> Default for Paged<T> {
    fn default() -> Paged<T> {
        Paged {
            pages: Vec::new(),
            starts: Vec::new(),
            next: None,
            exhausted: false,
            generation: 0,
            loading: false,
            refilling: None,
        }
    }
}

impl<T> Paged<T> {
    /// Forgets the rows; answers to earlier requests are ignored from now on.
    pub fn restart(&mut self) {
        let generation = self.generation + 1;
        *self = Paged {
            generation,
            ..Paged::default()
        };
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

    /// Adds a page answered for `generation` (or fills the forgotten page read again);
    /// returns whether it was current (a stale answer is dropped). `next` is `None` at
    /// the end of the list.
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
        let rows: Vec<T> = rows.into_iter().collect();
        if let Some(index) = self.refilling.take() {
            let page = &mut self.pages[index];
            if rows.len() == page.len {
                page.rows = Some(rows);
            } else {
                // The list changed under the forgotten page (and its reload is on its
                // way): the rows no longer fit where they were.
                self.restart();
            }
            return true;
        }
        self.exhausted |= next.is_none();
        let after = std::mem::replace(&mut self.next, next);
        self.starts.push(self.len());
        self.pages.push(Page {
            after,
            len: rows.len(),
            rows: Some(rows),
        });
        true
    }

    /// Rows in the list so far, forgotten ones included.
    pub fn len(&self) -> usize {
        self.pages
            .last()
            .map_or(0, |page| self.starts[self.pages.len() - 1] + page.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `index`, unless it is not loaded or was forgotten.
    pub fn get(&self, index: usize) -> Option<&T> {
        let page = self.page_of(index)?;
        self.pages[page].rows.as_ref()?.get(index - self.starts[page])
    }

    /// The rows in memory, with their places in the list.
    pub fn loaded(&self) -> impl Iterator<Item = (usize, &T)> {
        self.pages.iter().zip(&self.starts).flat_map(|(page, &start)| {
            let rows = page.rows.iter().flatten();
            rows.enumerate().map(move |(i, row)| (start + i, row))
        })
    }

    /// The rows in memory, to change in place.
    pub fn loaded_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.pages
            .iter_mut()
            .flat_map(|page| page.rows.iter_mut().flatten())
    }

    /// The place of the first row in memory that `matches`.
    pub fn position(&self, matches: impl Fn(&T) -> bool) -> Option<usize> {
        self.loaded()
            .find(|(_, row)| matches(row))
            .map(|(index, _)| index)
    }

    /// Forgets the pages wholly outside `keep` (rows), keeping their places.
    pub fn forget_outside(&mut self, keep: Range<usize>) {
        for (index, (page, &start)) in self.pages.iter_mut().zip(&self.starts).enumerate() {
            let outside = start + page.len <= keep.start || start >= keep.end;
            if outside && self.refilling != Some(index) {
                page.rows = None;
            }
        }
    }

    /// The request that reads again a forgotten page among rows `wanted`, if one may be
    /// asked for now: its generation, start and length; it then counts as on its way.
    pub fn refill_request(&mut self, wanted: Range<usize>) -> Option<(u64, Option<Cursor>, u32)> {
        if self.loading || wanted.is_empty() {
            return None;
        }
        let first = self.page_of(wanted.start)?;
        let last = self.page_of(wanted.end - 1).unwrap_or(self.pages.len() - 1);
        let index = (first..=last).find(|&i| self.pages[i].rows.is_none())?;
        self.loading = true;
        self.refilling = Some(index);
        let page = &self.pages[index];
        Some((self.generation, page.after.clone(), page.len as u32))
    }

    /// The page holding row `index`.
    fn page_of(&self, index: usize) -> Option<usize> {
        let page = self
            .starts
            .partition_point(|&start| start <= index)
            .checked_sub(1)?;
        (index < self.starts[page] + self.pages[page].len).then_some(page)
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
        assert!(list.is_empty());
        let (third, _) = list.next_request().unwrap();
        assert!(list.on_page(third, [4], None));
        assert!(list.exhausted() && list.next_request().is_none());
        assert_eq!(list.get(0), Some(&4));
        assert_eq!(list.len(), 1);
    }

    #[test]
    fn forgotten_pages_keep_their_places_and_are_read_again_in_view() {
        let mut list = Paged::default();
        for (rows, next) in [(vec![1, 2, 3], 3), (vec![4, 5], 5), (vec![6, 7], 7)] {
            let (generation, _) = list.next_request().unwrap();
            assert!(list.on_page(generation, rows, cursor(next)));
        }
        list.forget_outside(3..5);
        assert_eq!(list.len(), 7, "forgotten rows keep their places");
        assert_eq!((list.get(2), list.get(3), list.get(5)), (None, Some(&4), None));
        assert_eq!(list.position(|&row| row == 5), Some(4));
        assert_eq!(list.position(|&row| row == 1), None, "not in memory");
        assert_eq!(list.loaded().map(|(i, _)| i).collect::<Vec<_>>(), [3, 4]);

        assert!(list.refill_request(3..5).is_none(), "all in memory");
        let (generation, after, limit) = list.refill_request(4..6).unwrap();
        assert_eq!(
            (after.unwrap().id, limit),
            (5, 2),
            "the third page, from where it started"
        );
        assert!(list.next_request().is_none(), "one page at a time");
        assert!(list.on_page(generation, [6, 7], cursor(7)));
        assert_eq!((list.get(5), list.get(6)), (Some(&6), Some(&7)));
        assert_eq!(list.len(), 7, "a page read again is not added");

        let (generation, after, limit) = list.refill_request(0..1).unwrap();
        assert_eq!((after, limit), (None, 3), "the first page starts at the top");
        assert!(
            list.on_page(generation, [1, 2], cursor(2)),
            "the list changed meanwhile"
        );
        assert!(list.is_empty(), "so it is read again from the top");
        assert!(list.next_request().unwrap().1.is_none());
    }

    #[test]
    fn a_single_page_list_asks_for_nothing_more() {
        let mut list: Paged<i32> = Paged::default();
        let generation = list.single_request();
        assert!(list.on_page(generation, [1], None));
        assert!(list.next_request().is_none());
    }
}
