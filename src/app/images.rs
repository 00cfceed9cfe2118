//! Images in the review: which blocks are pictures, the rows they take, their decoding
//! (asked of the runner as effects, once per image and width) and what the draw shows.
//! The decode itself is here too, as a plain function the runner calls on a blocking thread.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::Cursor;
use std::sync::Arc;

use base64::Engine;
use image::ImageReader;
use ratatui_image::picker::Picker;
use ratatui_image::sliced::SlicedProtocol;
use ratatui_image::{FontSize, Resize};

use super::Effect;
pub use super::graphics::{DEFAULT_FONT, Decoded, Graphics, Picture, SourceImage};
use crate::model::Content;
pub use crate::render::body::{header_size, image_of};

/// The most rows a picture takes in the review (its width follows, aspect kept).
pub const MAX_PICTURE_ROWS: u16 = 16;
/// Images with more pixels than this are not decoded (a line says so).
pub const MAX_PIXELS: u64 = 50_000_000;
/// The most bytes the decoder may allocate for one image (the budget's RGBA and some).
const MAX_DECODE_ALLOC: u64 = 512 * 1024 * 1024;
/// Widths a picture is kept encoded at (the screen's, and the one before a resize).
const WIDTHS_KEPT: usize = 2;
/// Images decoded at once at most (each may take its allocation budget): the others are
/// asked as answers come back.
pub const DECODES_AT_ONCE: usize = 2;

/// Why an image of `pixels` is not decoded, if it is over the budget.
pub fn over_budget((width, height): (u32, u32)) -> Option<String> {
    (u64::from(width) * u64::from(height) > MAX_PIXELS).then(|| {
        format!(
            "{width}×{height} px is over the {}-megapixel budget",
            MAX_PIXELS / 1_000_000
        )
    })
}

/// The cells (columns, rows) a picture of `pixels` takes at most `columns` wide and
/// [`MAX_PICTURE_ROWS`] high, its aspect kept, at `font` pixels per cell; never smaller
/// than one cell.
pub fn picture_cells(pixels: (u32, u32), font: (u16, u16), columns: u16) -> (u16, u16) {
    let (width, height) = (f64::from(pixels.0.max(1)), f64::from(pixels.1.max(1)));
    let (cell_w, cell_h) = (f64::from(font.0.max(1)), f64::from(font.1.max(1)));
    // Its natural size in cells, then shrunk to the room, both ways.
    let natural = (width / cell_w, height / cell_h);
    let scale = 1f64
        .min(f64::from(columns.max(1)) / natural.0)
        .min(f64::from(MAX_PICTURE_ROWS) / natural.1);
    let fit = |cells: f64, most: u16| (cells * scale).ceil().clamp(1.0, f64::from(most)) as u16;
    (
        fit(natural.0, columns.max(1)),
        fit(natural.1, MAX_PICTURE_ROWS),
    )
}

/// Where one image stands.
#[derive(Debug, Clone)]
enum Entry {
    /// Asked of the runner (request `id`, for `columns`); its pixel size when the header told.
    Decoding {
        id: u64,
        columns: u16,
        pixels: Option<(u32, u32)>,
    },
    /// Decoded: its pictures per width, and a width being encoded.
    Ready {
        pixels: (u32, u32),
        source: SourceImage,
        pictures: Vec<(u16, Picture)>,
        encoding: Option<(u64, u16)>,
    },
    /// Not drawn, and why.
    Failed(String),
}

/// What the reserved rows of an image show.
#[derive(Debug, Clone, PartialEq)]
pub enum Shown {
    /// Waiting for the decode.
    Decoding(Option<(u32, u32)>),
    /// The picture, ready for this width.
    Picture {
        /// The image's size in pixels.
        pixels: (u32, u32),
        /// The encoded picture.
        picture: Picture,
    },
    /// Decoded, its picture for this width not encoded yet.
    Encoding((u32, u32)),
    /// Not drawn, and why.
    Failed(String),
}

/// The review's images: how the terminal draws them and where each one stands, keyed by
/// its data (so undo, moves and copies of a message share one decode).
#[derive(Debug, Clone, Default)]
pub struct Pictures {
    /// How pictures are drawn here.
    pub graphics: Graphics,
    entries: HashMap<u64, Entry>,
    /// Requests in flight: id → image key.
    waiting: HashMap<u64, u64>,
}

/// A key for an image's data: its length, MIME type, both ends and samples spread over it
/// (hashing all of a 30 MB image on every layout would cost more than the layout).
fn image_key(data: &str, mime: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let bytes = data.as_bytes();
    bytes.len().hash(&mut hasher);
    mime.hash(&mut hasher);
    const END: usize = 1024;
    const SAMPLES: usize = 256;
    const SAMPLE: usize = 16;
    if bytes.len() <= 2 * END + SAMPLES * SAMPLE {
        bytes.hash(&mut hasher);
    } else {
        bytes[..END].hash(&mut hasher);
        bytes[bytes.len() - END..].hash(&mut hasher);
        let step = (bytes.len() - 2 * END) / SAMPLES;
        for i in 0..SAMPLES {
            let at = END + i * step;
            bytes[at..at + SAMPLE].hash(&mut hasher);
        }
    }
    hasher.finish()
}

impl Pictures {
    /// Pictures drawn as `graphics` says.
    pub fn new(graphics: Graphics) -> Pictures {
        Pictures {
            graphics,
            ..Pictures::default()
        }
    }

    /// Whether pictures are drawn at all.
    pub fn enabled(&self) -> bool {
        self.graphics.protocol.is_some()
    }

    /// The rows `content`'s picture takes under its caption at `width` columns: none for a
    /// block that is no image (or with pictures off), one for a line (decoding, a refusal),
    /// else the picture's height.
    pub fn reserved_rows(&self, content: &Content, width: usize) -> usize {
        if !self.enabled() {
            return 0;
        }
        let Some((data, mime)) = image_of(content) else {
            return 0;
        };
        let columns = u16::try_from(width).unwrap_or(u16::MAX);
        let pixels = match self.entries.get(&image_key(data, mime)) {
            Some(Entry::Failed(_)) => return 1,
            Some(Entry::Ready {
                pixels, pictures, ..
            }) => {
                // The encoded picture's own height, so it always fits the rows kept for it.
                if let Some((_, picture)) = pictures.iter().find(|(at, _)| *at == columns) {
                    return usize::from(picture.cells.1.max(1));
                }
                Some(*pixels)
            }
            Some(Entry::Decoding { pixels, .. }) => *pixels,
            None => header_size(data),
        };
        match pixels {
            Some(pixels) if over_budget(pixels).is_none() => {
                usize::from(picture_cells(pixels, self.graphics.cell_pixels(), columns).1)
            }
            _ => 1,
        }
    }

    /// What `content`'s reserved rows show at `width` columns.
    pub fn shown(&self, content: &Content, width: usize) -> Option<Shown> {
        let (data, mime) = image_of(content)?;
        let columns = u16::try_from(width).unwrap_or(u16::MAX);
        Some(match self.entries.get(&image_key(data, mime)) {
            None => Shown::Decoding(header_size(data)),
            Some(Entry::Decoding { pixels, .. }) => Shown::Decoding(*pixels),
            Some(Entry::Failed(why)) => Shown::Failed(why.clone()),
            Some(Entry::Ready {
                pixels, pictures, ..
            }) => match pictures.iter().find(|(at, _)| *at == columns) {
                Some((_, picture)) => Shown::Picture {
                    pixels: *pixels,
                    picture: picture.clone(),
                },
                None => Shown::Encoding(*pixels),
            },
        })
    }

    /// The decodes and encodings the images of `contents` need at `width` columns, each
    /// asked once (ids from `next_id`); an image over the budget is refused here already.
    pub fn wanted<'a>(
        &mut self,
        contents: impl Iterator<Item = &'a Content>,
        width: usize,
        next_id: &mut u64,
    ) -> Vec<Effect> {
        if !self.enabled() {
            return Vec::new();
        }
        let columns = u16::try_from(width).unwrap_or(u16::MAX);
        let mut effects = Vec::new();
        let mut decoding = self
            .entries
            .values()
            .filter(|e| matches!(e, Entry::Decoding { .. }))
            .count();
        for content in contents {
            let Some((data, mime)) = image_of(content) else {
                continue;
            };
            let key = image_key(data, mime);
            let mut fresh = || {
                *next_id += 1;
                *next_id
            };
            match self.entries.get_mut(&key) {
                None => {
                    let pixels = header_size(data);
                    if let Some(why) = pixels.and_then(over_budget) {
                        self.entries.insert(key, Entry::Failed(why));
                        continue;
                    }
                    if decoding == DECODES_AT_ONCE {
                        continue;
                    }
                    decoding += 1;
                    let id = fresh();
                    self.entries.insert(
                        key,
                        Entry::Decoding {
                            id,
                            columns,
                            pixels,
                        },
                    );
                    self.waiting.insert(id, key);
                    effects.push(Effect::DecodeImage {
                        id,
                        data: data.to_string(),
                        mime: mime.to_string(),
                        graphics: self.graphics,
                        columns,
                    });
                }
                Some(Entry::Ready {
                    pixels,
                    source,
                    pictures,
                    encoding,
                }) => {
                    let has = pictures.iter().any(|(at, _)| *at == columns);
                    // A width where the picture keeps its size reuses its encoding.
                    let cells = picture_cells(*pixels, self.graphics.cell_pixels(), columns);
                    if !has
                        && let Some(same) = pictures
                            .iter()
                            .find(|(_, p)| p.cells == cells)
                            .map(|(_, p)| p.clone())
                    {
                        if pictures.len() == WIDTHS_KEPT {
                            pictures.remove(0);
                        }
                        pictures.push((columns, same));
                        continue;
                    }
                    let asked = encoding.is_some_and(|(_, at)| at == columns);
                    if !has && !asked {
                        let id = fresh();
                        if let Some((old, _)) = encoding.replace((id, columns)) {
                            self.waiting.remove(&old);
                        }
                        self.waiting.insert(id, key);
                        effects.push(Effect::EncodeImage {
                            id,
                            source: source.clone(),
                            graphics: self.graphics,
                            columns,
                        });
                    }
                }
                // A decode in flight serves its width; a new width is encoded once it is done.
                Some(Entry::Decoding { .. }) | Some(Entry::Failed(_)) => {}
            }
        }
        effects
    }

    /// Takes a decode's (or an encoding's) answer; one for a request no longer awaited
    /// (the review left, a newer width asked) is dropped.
    pub fn on_decoded(&mut self, id: u64, result: Result<Decoded, String>) {
        let Some(key) = self.waiting.remove(&id) else {
            return;
        };
        let Some(entry) = self.entries.get_mut(&key) else {
            return;
        };
        let columns = match entry {
            Entry::Decoding {
                id: asked, columns, ..
            } if *asked == id => *columns,
            Entry::Ready {
                encoding: Some((asked, columns)),
                ..
            } if *asked == id => *columns,
            _ => return,
        };
        match (result, &mut *entry) {
            (Err(why), Entry::Decoding { .. }) => *entry = Entry::Failed(why),
            (Err(why), Entry::Ready { encoding, .. }) => {
                // The image decoded before: only this width failed.
                *encoding = None;
                tracing::info!(%why, "cannot encode a picture");
            }
            (Ok(decoded), Entry::Decoding { .. }) => {
                *entry = Entry::Ready {
                    pixels: decoded.pixels,
                    source: decoded.source,
                    pictures: vec![(columns, decoded.picture)],
                    encoding: None,
                };
            }
            (
                Ok(decoded),
                Entry::Ready {
                    pictures, encoding, ..
                },
            ) => {
                *encoding = None;
                if pictures.len() == WIDTHS_KEPT {
                    pictures.remove(0);
                }
                pictures.push((columns, decoded.picture));
            }
            (_, Entry::Failed(_)) => {}
        }
    }
}

/// A picker for `graphics` (`None` with pictures off).
fn picker(graphics: &Graphics) -> Option<Picker> {
    let protocol = graphics.protocol?;
    let (cell_w, cell_h) = graphics.cell_pixels();
    // The only constructor taking a known cell size; it also tells tmux (for passthrough).
    #[allow(deprecated)]
    let mut picker = Picker::from_fontsize(FontSize::new(cell_w, cell_h));
    picker.set_protocol_type(protocol);
    Some(picker)
}

/// Decodes a base64 image (its header first: refused over [`MAX_PIXELS`], allocations
/// bounded) and encodes its picture for `columns` columns. Every failure is a sentence.
/// Slow on big images: the runner calls it on a blocking thread.
pub fn decode(data: &str, graphics: &Graphics, columns: u16) -> Result<Decoded, String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.split_ascii_whitespace().collect::<String>())
        .map_err(|e| format!("the server's base64 data is damaged ({e})"))?;
    let reader = || -> Result<ImageReader<Cursor<&[u8]>>, String> {
        let mut reader = ImageReader::new(Cursor::new(bytes.as_slice()))
            .with_guessed_format()
            .map_err(|e| format!("cannot read it ({e})"))?;
        if reader.format().is_none() {
            return Err("not a format mcpick decodes (PNG, JPEG, GIF, WebP)".to_string());
        }
        let mut limits = image::Limits::default();
        limits.max_alloc = Some(MAX_DECODE_ALLOC);
        reader.limits(limits);
        Ok(reader)
    };
    let pixels = reader()?
        .into_dimensions()
        .map_err(|e| format!("cannot read its header ({e})"))?;
    if let Some(why) = over_budget(pixels) {
        return Err(why);
    }
    let image = reader()?
        .decode()
        .map_err(|e| format!("cannot decode it ({e})"))?;
    // No picture shows more than MAX_PICTURE_ROWS cells high: keep no more pixels than that.
    let (cell_w, cell_h) = graphics.cell_pixels();
    let (cell_w, cell_h) = (u32::from(cell_w), u32::from(cell_h));
    let most = (
        u32::from(u16::MAX).saturating_mul(cell_w.max(1)),
        u32::from(MAX_PICTURE_ROWS) * cell_h.max(1),
    );
    let image = if image.width() > most.0 || image.height() > most.1 {
        image.thumbnail(most.0, most.1)
    } else {
        image
    };
    let source = SourceImage(Arc::new(image));
    let picture = encode(&source, pixels, graphics, columns)?;
    Ok(Decoded {
        pixels,
        source,
        picture,
    })
}

/// Encodes `source` (an image of `pixels`) as a picture for `columns` columns.
pub fn encode(
    source: &SourceImage,
    pixels: (u32, u32),
    graphics: &Graphics,
    columns: u16,
) -> Result<Picture, String> {
    let picker = picker(graphics).ok_or("pictures are off")?;
    let cells = picture_cells(pixels, graphics.cell_pixels(), columns);
    let protocol = SlicedProtocol::new_with_resize(
        &picker,
        (*source.0).clone(),
        ratatui::layout::Size::new(cells.0, cells.1),
        Resize::Fit(None),
    )
    .map_err(|e| format!("cannot encode it for the terminal ({e})"))?;
    let cells = (protocol.size().width, protocol.size().height);
    Ok(Picture {
        protocol: Arc::new(protocol),
        cells,
    })
}

/// [`encode`] for a new width: the size comes from the source (same aspect).
pub fn encode_again(
    source: &SourceImage,
    graphics: &Graphics,
    columns: u16,
) -> Result<Decoded, String> {
    let pixels = (source.0.width(), source.0.height());
    let picture = encode(source, pixels, graphics, columns)?;
    Ok(Decoded {
        pixels,
        source: source.clone(),
        picture,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::app::review_tests::review_of;
    use crate::app::tests::key;
    use crate::app::{App, Msg, Screen};
    use crate::model::PromptMessages;
    use crossterm::event::KeyCode;
    use ratatui_image::picker::ProtocolType;

    const HALFBLOCKS: Graphics = Graphics {
        protocol: Some(ProtocolType::Halfblocks),
        font: (10, 20),
    };

    /// A real PNG of `width` × `height` (a gradient), base64.
    pub(crate) fn png(width: u32, height: u32) -> String {
        let image = image::RgbImage::from_fn(width, height, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 128])
        });
        let mut bytes = Vec::new();
        image::DynamicImage::ImageRgb8(image)
            .write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png)
            .expect("encode a PNG");
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    /// A PNG's signature and IHDR only: a header saying `width` × `height`, no pixels.
    fn png_header(width: u32, height: u32) -> String {
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend(width.to_be_bytes());
        ihdr.extend(height.to_be_bytes());
        ihdr.extend([8, 2, 0, 0, 0]);
        let crc = crc32(&ihdr);
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        bytes.extend(13u32.to_be_bytes());
        bytes.extend(&ihdr);
        bytes.extend(crc.to_be_bytes());
        // An empty image stream and the end: what a reader needs to tell the size.
        for kind in [b"IDAT", b"IEND"] {
            bytes.extend(0u32.to_be_bytes());
            bytes.extend(kind);
            bytes.extend(crc32(kind).to_be_bytes());
        }
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &byte in bytes {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    fn with_images(data: &[&str]) -> PromptMessages {
        let messages: Vec<serde_json::Value> = data
            .iter()
            .map(|d| {
                serde_json::json!({"role": "user",
                    "content": {"type": "image", "data": d, "mimeType": "image/png"}})
            })
            .collect();
        serde_json::from_value(serde_json::json!({ "messages": messages })).unwrap()
    }

    /// The review of `messages` at `columns` × 40, drawing with `graphics`.
    fn review_app(messages: PromptMessages, columns: u16, graphics: Graphics) -> App {
        let mut app = review_of(messages, columns, 40);
        app.options.graphics = graphics;
        app
    }

    fn decodes(effects: &[Effect]) -> Vec<(u64, u16)> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::DecodeImage { id, columns, .. } => Some((*id, *columns)),
                _ => None,
            })
            .collect()
    }

    fn encodes(effects: &[Effect]) -> Vec<(u64, u16)> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::EncodeImage { id, columns, .. } => Some((*id, *columns)),
                _ => None,
            })
            .collect()
    }

    /// Runs a decode the way the runner does, and feeds its answer back.
    fn answer(app: &mut App, effects: &[Effect]) {
        for effect in effects {
            let (id, result) = match effect {
                Effect::DecodeImage {
                    id,
                    data,
                    graphics,
                    columns,
                    ..
                } => (*id, decode(data, graphics, *columns)),
                Effect::EncodeImage {
                    id,
                    source,
                    graphics,
                    columns,
                } => (*id, encode_again(source, graphics, *columns)),
                _ => continue,
            };
            app.update(Msg::ImageDecoded { id, result });
        }
    }

    fn shown(app: &App, index: usize) -> Shown {
        let Screen::Review(review) = &app.screen else {
            panic!("not in the review");
        };
        let width = review.messages_view().width;
        review
            .pictures
            .shown(&review.items[index].message().content, width)
            .expect("an image")
    }

    #[test]
    fn a_decode_is_asked_once_per_image_and_width() {
        let picture = png(1280, 480);
        // The same image twice, and another one.
        let other = png(64, 48);
        let mut app = review_app(with_images(&[&picture, &picture, &other]), 120, HALFBLOCKS);
        let first = app.update(Msg::Resize(120, 40));
        assert_eq!(decodes(&first).len(), 2, "{first:?}");
        assert!(decodes(&app.update(Msg::Resize(120, 40))).is_empty());
        assert!(decodes(&app.update(key(KeyCode::Down))).is_empty());
        answer(&mut app, &first);
        let Shown::Picture {
            pixels,
            picture: drawn,
        } = shown(&app, 0)
        else {
            panic!("not drawn: {:?}", shown(&app, 0));
        };
        assert_eq!(pixels, (1280, 480));
        // In half-blocks a cell shows 1×2 pixels: 1280×480 is 1280×240 cells, so 16 rows
        // high at most, aspect kept.
        assert_eq!(drawn.cells, (85, 16));
        assert!(matches!(shown(&app, 1), Shown::Picture { .. }));
        // A narrower pane: the big one is encoded again (once), the small one keeps its size.
        let narrower = app.update(Msg::Resize(60, 40));
        assert!(decodes(&narrower).is_empty());
        assert_eq!(encodes(&narrower).len(), 1, "{narrower:?}");
        assert!(encodes(&app.update(Msg::Resize(60, 40))).is_empty());
        assert!(matches!(shown(&app, 0), Shown::Encoding((1280, 480))));
        assert!(matches!(shown(&app, 2), Shown::Picture { .. }));
        answer(&mut app, &narrower);
        let Shown::Picture { picture, .. } = shown(&app, 0) else {
            panic!("not drawn at 60 columns");
        };
        assert_eq!(picture.cells, (58, 11));
        // Back to the first width: still kept, nothing to do.
        let back = app.update(Msg::Resize(120, 40));
        assert!(
            decodes(&back).is_empty() && encodes(&back).is_empty(),
            "{back:?}"
        );
    }

    #[test]
    fn images_are_decoded_a_few_at_a_time() {
        let pictures: Vec<String> = (1..=5).map(|n| png(8 * n, 8)).collect();
        let data: Vec<&str> = pictures.iter().map(String::as_str).collect();
        let mut app = review_app(with_images(&data), 120, HALFBLOCKS);
        let mut asked = decodes(&app.update(Msg::Resize(120, 40)));
        assert_eq!(asked.len(), DECODES_AT_ONCE);
        let mut all = asked.clone();
        // Each answer lets the next one start, until all five are drawn.
        while let Some((id, _)) = asked.pop() {
            let effects = app.update(Msg::ImageDecoded {
                id,
                result: Err("not needed here".into()),
            });
            let more = decodes(&effects);
            assert!(more.len() <= 1, "{more:?}");
            all.extend(&more);
            asked.extend(more);
        }
        assert_eq!(all.len(), 5, "{all:?}");
    }

    #[test]
    fn answers_for_requests_no_longer_awaited_are_dropped() {
        let picture = png(1280, 480);
        let mut app = review_app(with_images(&[&picture]), 120, HALFBLOCKS);
        let asked = app.update(Msg::Resize(120, 40));
        let [(id, _)] = decodes(&asked)[..] else {
            panic!("{asked:?}");
        };
        // An id nobody asked for changes nothing.
        app.update(Msg::ImageDecoded {
            id: id + 100,
            result: Err("stale".into()),
        });
        assert!(matches!(shown(&app, 0), Shown::Decoding(Some((1280, 480)))));
        answer(&mut app, &asked);
        // Two widths asked in a row: the first one's answer comes too late.
        let at_70 = app.update(Msg::Resize(70, 40));
        let at_60 = app.update(Msg::Resize(60, 40));
        assert_eq!(encodes(&at_70).len(), 1);
        assert_eq!(encodes(&at_60).len(), 1);
        answer(&mut app, &at_70);
        assert!(matches!(shown(&app, 0), Shown::Encoding(_)));
        answer(&mut app, &at_60);
        assert!(matches!(shown(&app, 0), Shown::Picture { .. }));
        // The review left: an answer for it is dropped without a trace.
        let again = app.update(Msg::Resize(70, 40));
        assert_eq!(encodes(&again).len(), 1);
        app.update(key(KeyCode::Esc));
        assert!(!matches!(app.screen, Screen::Review(_)));
        answer(&mut app, &again);
    }

    #[test]
    fn an_image_over_the_budget_is_a_line_and_never_decoded() {
        let huge = png_header(10_000, 6_000);
        assert_eq!(header_size(&huge), Some((10_000, 6_000)));
        let mut app = review_app(with_images(&[&huge]), 120, HALFBLOCKS);
        let effects = app.update(Msg::Resize(120, 40));
        assert!(decodes(&effects).is_empty(), "{effects:?}");
        let Shown::Failed(why) = shown(&app, 0) else {
            panic!("not refused: {:?}", shown(&app, 0));
        };
        assert!(
            why.contains("10000×6000 px is over the 50-megapixel budget"),
            "{why}"
        );
        // The decode refuses it too (its header is read first), without allocating it.
        let refused = decode(&huge, &HALFBLOCKS, 80).unwrap_err();
        assert!(refused.contains("50-megapixel"), "{refused}");
    }

    #[test]
    fn a_decode_error_is_a_line() {
        let broken = base64::engine::general_purpose::STANDARD.encode("not a picture at all");
        let damaged = format!("{}!!", png(8, 8));
        for (data, says) in [
            (broken.as_str(), "not a format mcpick decodes"),
            ("%%%", "base64 data is damaged"),
            (damaged.as_str(), "base64 data is damaged"),
        ] {
            let mut app = review_app(with_images(&[data]), 120, HALFBLOCKS);
            let effects = app.update(Msg::Resize(120, 40));
            assert_eq!(decodes(&effects).len(), 1);
            answer(&mut app, &effects);
            let Shown::Failed(why) = shown(&app, 0) else {
                panic!("{data}: {:?}", shown(&app, 0));
            };
            assert!(why.contains(says), "{data}: {why}");
            // One line, and no decode asked again.
            let Screen::Review(review) = &app.screen else {
                unreachable!()
            };
            assert_eq!(
                review
                    .pictures
                    .reserved_rows(&review.items[0].message().content, 118),
                1
            );
            assert!(decodes(&app.update(Msg::Resize(120, 40))).is_empty());
        }
        // A truncated PNG: its header reads, its pixels do not.
        let whole = base64::engine::general_purpose::STANDARD
            .decode(png(64, 48))
            .unwrap();
        let cut = base64::engine::general_purpose::STANDARD.encode(&whole[..whole.len() / 2]);
        let why = decode(&cut, &HALFBLOCKS, 80).unwrap_err();
        assert!(why.starts_with("cannot decode it"), "{why}");
    }

    #[test]
    fn with_pictures_off_nothing_is_decoded_and_the_caption_keeps_the_size() {
        let picture = png(64, 48);
        let mut app = review_app(with_images(&[&picture]), 120, Graphics::default());
        let effects = app.update(Msg::Resize(120, 40));
        assert!(decodes(&effects).is_empty());
        let Screen::Review(review) = &app.screen else {
            unreachable!()
        };
        let content = &review.items[0].message().content;
        assert_eq!(review.pictures.reserved_rows(content, 118), 0);
        let caption: Vec<String> = crate::app::review::body_lines(content).collect();
        assert_eq!(
            caption,
            [format!(
                "image/png · 64×48 px · {} — w saves the bytes",
                crate::text::counted(crate::export::decoded_len(&picture), "byte", "bytes")
            )]
        );
    }

    #[test]
    fn embedded_blobs_with_an_image_type_are_images() {
        let picture = png(64, 48);
        let messages: PromptMessages = serde_json::from_value(serde_json::json!({"messages": [
            {"role": "user", "content": {"type": "resource", "resource": {
                "uri": "file:///a.png", "mimeType": "image/png", "blob": picture}}},
            {"role": "user", "content": {"type": "resource", "resource": {
                "uri": "file:///a.bin", "mimeType": "application/octet-stream", "blob": picture}}}
        ]}))
        .unwrap();
        let mut app = review_app(messages, 120, HALFBLOCKS);
        let effects = app.update(Msg::Resize(120, 40));
        assert_eq!(decodes(&effects).len(), 1, "{effects:?}");
        answer(&mut app, &effects);
        assert!(matches!(shown(&app, 0), Shown::Picture { .. }));
        let Screen::Review(review) = &app.screen else {
            unreachable!()
        };
        assert!(image_of(&review.items[1].message().content).is_none());
        let caption: Vec<String> =
            crate::app::review::body_lines(&review.items[0].message().content).collect();
        assert!(
            caption[0].starts_with("resource file:///a.png · image/png · 64×48 px · "),
            "{caption:?}"
        );
    }

    #[test]
    fn pictures_fit_the_width_and_sixteen_rows_keeping_their_aspect() {
        assert_eq!(picture_cells((64, 48), (10, 20), 118), (7, 3));
        assert_eq!(picture_cells((640, 480), (10, 20), 118), (43, 16));
        assert_eq!(picture_cells((640, 480), (10, 20), 20), (20, 8));
        assert_eq!(picture_cells((4000, 10), (10, 20), 50), (50, 1));
        assert_eq!(picture_cells((1, 1), (10, 20), 50), (1, 1));
        assert_eq!(picture_cells((0, 0), (0, 0), 0), (1, 1));
        assert!(over_budget((7072, 7072)).is_some());
        assert!(over_budget((7000, 7000)).is_none());
    }
}
