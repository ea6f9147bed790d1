//! Glyphs rasterised once per run. plotters outlines and fills every glyph of every text
//! it draws, and a run draws the same few score glyphs at the same few sizes hundreds of
//! thousands of times: that was half the time of drawing a chart. Here a text is laid
//! out as plotters lays it out (its kerning and advances, its placement), and each glyph's
//! coverage comes from a cache of the pixels ab_glyph gave the first time, handed to the
//! backend in the same order with the same colour. A chart has the same pixels with or
//! without the cache (the chart tests compare them).

use super::{FONT, FONT_REGULAR};
use ab_glyph::{Font, FontRef, ScaleFont};
use plotters::style::FontStyle;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Glyphs kept at most (a character at a size); past it a glyph is drawn and
/// not kept, so a long-running process (the live page's server) holds a bounded cache.
const MOST: usize = 8192;

/// A glyph as ab_glyph fills it at the origin: the top of its pixel bounds and, in order,
/// every pixel of some coverage (a pixel of none leaves the image as it is).
struct Glyph {
    min_y: f32,
    pixels: Vec<(u16, u16, f32)>,
}

/// (the size's bits, the character).
type Key = (u64, char);

/// The glyphs drawn so far, shared by the charts of a run (they are drawn side by side).
pub struct TextCache {
    /// The regular font plotters draws with (registered from the same bytes); `None`
    /// if it did not parse (it is compiled in, so never): text is then left to plotters.
    font: Option<FontRef<'static>>,
    glyphs: Mutex<HashMap<Key, Option<Arc<Glyph>>>>,
}

impl std::fmt::Debug for TextCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.glyphs.lock().map_or(0, |g| g.len());
        write!(f, "TextCache({n} glyphs)")
    }
}

impl Default for TextCache {
    fn default() -> Self {
        Self::new()
    }
}

impl TextCache {
    /// An empty cache.
    pub fn new() -> Self {
        TextCache {
            font: FontRef::try_from_slice(FONT_REGULAR).ok(),
            glyphs: Mutex::default(),
        }
    }

    /// Glyph `c` of `font` at `size`, filled now or earlier; `None` if it has no
    /// outline (a space).
    fn glyph(&self, font: &FontRef<'static>, size: f64, c: char) -> Option<Arc<Glyph>> {
        let key = (size.to_bits(), c);
        if let Some(g) = self.glyphs.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return g;
        }
        let font = font.as_scaled(size as f32);
        let g = font.outline_glyph(font.scaled_glyph(c)).map(|q| {
            let mut pixels = Vec::new();
            q.draw(|x, y, cov| {
                if cov > 0.0 {
                    pixels.push((x as u16, y as u16, cov));
                }
            });
            Arc::new(Glyph {
                min_y: q.px_bounds().min.y,
                pixels,
            })
        });
        if let Ok(mut m) = self.glyphs.lock() {
            if m.len() < MOST {
                m.insert(key, g.clone());
            }
        }
        g
    }
}

/// A backend whose text goes through a [`TextCache`]; everything else is the inner
/// backend's own.
pub struct Cached<'c, DB> {
    pub inner: DB,
    pub cache: &'c TextCache,
}

impl<DB: DrawingBackend> DrawingBackend for Cached<'_, DB> {
    type ErrorType = DB::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }
    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        self.inner.estimate_text_size(text, style)
    }
    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        (iw, ih): (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.blit_bitmap(pos, (iw, ih), src)
    }

    /// plotters' own text drawing (`DrawingBackend::draw_text` placing what its ab_glyph
    /// font draws), each glyph's pixels from the cache. A font other than the embedded
    /// one, or a style other than regular and bold, is left to plotters.
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        // Bold too (titles, a race's band labels): only the regular face is registered
        // (see `fonts`), and plotters draws a bold text in it (the test below holds the
        // pixels).
        let regular = style.family().as_str() == FONT
            && matches!(style.style(), FontStyle::Normal | FontStyle::Bold);
        let Some(face) = self.cache.font.as_ref().filter(|_| regular) else {
            return self.inner.draw_text(text, style, pos);
        };
        let ((min_x, min_y), (max_x, max_y)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let (width, height) = (max_x - min_x, max_y - min_y);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let trans = style.transform();
        let (iw, ih) = self.get_size();
        let size = style.size();
        let font = face.as_scaled(size as f32);
        // As plotters' ab_glyph font draws a text at (0, 0): kerning and advances in
        // floating point, each glyph placed at the whole pixel below.
        let mut x_shift = 0f32;
        let mut prev = None;
        for c in text.chars() {
            if let Some(pc) = prev {
                x_shift += font.kern(font.glyph_id(pc), font.glyph_id(c));
            }
            prev = Some(c);
            if let Some(g) = self.cache.glyph(face, size, c) {
                let y_shift = ((size as f32) / 2.0 + g.min_y) as i32;
                let x_at = x_shift as i32;
                for &(x, y, cov) in &g.pixels {
                    let (x, y) = (x as i32 + x_at, y as i32 + y_shift);
                    let (x, y) = trans.transform(x + dx - min_x, y + dy - min_y);
                    let (x, y) = (pos.0 + x, pos.1 + y);
                    if x >= 0 && x < iw as i32 && y >= 0 && y < ih as i32 {
                        self.inner.draw_pixel((x, y), color.mix(cov as f64))?;
                    }
                }
            }
            x_shift += font.h_advance(font.glyph_id(c));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    use plotters::style::FontTransform;

    /// Texts in every placement the charts use (anchors, the y axis's turned label,
    /// sizes, colours, a half-transparent one, bold, text past the edge): drawn through
    /// the cache, twice, they have the pixels plotters gives them itself.
    #[test]
    fn cached_text_has_plotters_own_pixels() {
        super::super::fonts();
        let (w, h) = (400u32, 300u32);
        fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, plotters::coord::Shift>)
        where
            DB::ErrorType: 'static,
        {
            area.fill(&WHITE).unwrap();
            let texts = [
                (
                    "45.3%",
                    13.0,
                    Pos::new(HPos::Left, VPos::Top),
                    FontTransform::None,
                ),
                (
                    "probability",
                    16.0,
                    Pos::new(HPos::Center, VPos::Center),
                    FontTransform::Rotate270,
                ),
                (
                    "AVA Wo fi 1,234",
                    15.0,
                    Pos::new(HPos::Right, VPos::Bottom),
                    FontTransform::None,
                ),
                (
                    "slamback double",
                    14.0,
                    Pos::new(HPos::Center, VPos::Top),
                    FontTransform::Rotate90,
                ),
                (
                    "edge",
                    20.0,
                    Pos::new(HPos::Left, VPos::Top),
                    FontTransform::None,
                ),
            ];
            for (k, (t, size, anchor, turn)) in texts.into_iter().enumerate() {
                for (i, colour) in [BLACK.to_rgba(), RGBColor(70, 70, 70).mix(0.5)]
                    .into_iter()
                    .enumerate()
                {
                    let style = (super::FONT, size)
                        .into_font()
                        .transform(turn.clone())
                        .color(&colour)
                        .pos(anchor);
                    let at = if t == "edge" {
                        (385, 290)
                    } else {
                        (60 + 150 * i as i32, 30 + 55 * k as i32)
                    };
                    area.draw(&Text::new(t.to_string(), at, style)).unwrap();
                }
            }
            let bold = (super::FONT, 26)
                .into_font()
                .style(FontStyle::Bold)
                .color(&BLACK);
            area.draw(&Text::new("Title".to_string(), (200, 250), bold))
                .unwrap();
        }
        let mut plain = vec![0u8; (w * h * 3) as usize];
        {
            let area = BitMapBackend::with_buffer(&mut plain, (w, h)).into_drawing_area();
            draw(&area);
            area.present().unwrap();
        }
        let cache = TextCache::new();
        for round in 0..2 {
            let mut cached = vec![0u8; (w * h * 3) as usize];
            {
                let area = Cached {
                    inner: BitMapBackend::with_buffer(&mut cached, (w, h)),
                    cache: &cache,
                }
                .into_drawing_area();
                draw(&area);
                area.present().unwrap();
            }
            let differ = plain.iter().zip(&cached).filter(|(a, b)| a != b).count();
            assert_eq!(differ, 0, "round {round}: {differ} bytes differ");
        }
        assert!(plain.iter().any(|&b| b < 128), "the texts drew nothing");
    }
}
