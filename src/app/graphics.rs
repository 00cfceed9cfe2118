//! What the terminal can show of pictures, and the pictures passed between the loop and the
//! tasks that decode and encode them.

use std::fmt;
use std::sync::Arc;

use image::DynamicImage;
use ratatui_image::picker::ProtocolType;
use ratatui_image::sliced::SlicedProtocol;

/// How this terminal draws pictures, as detected at start (or set in the config).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Graphics {
    /// The protocol pictures are drawn with; `None`: no pictures, the caption only.
    pub protocol: Option<ProtocolType>,
    /// A cell's size in pixels (width, height): a picture's rows and columns follow from it.
    pub font: (u16, u16),
}

impl Graphics {
    /// The image pixels one cell shows: the font's cell for pixel protocols; for
    /// half-blocks, one pixel wide and two high (a cell's two halves), so a picture gets
    /// every cell it can use instead of the few its true size would take.
    pub fn cell_pixels(&self) -> (u16, u16) {
        match self.protocol {
            Some(ProtocolType::Halfblocks) => (1, 2),
            _ => self.font,
        }
    }
}

impl Default for Graphics {
    fn default() -> Self {
        Graphics {
            protocol: None,
            font: DEFAULT_FONT,
        }
    }
}

/// A picture encoded for one size in cells, for the draw (shared: cloning the app keeps
/// one encoding, so kitty's "transmitted once" holds). Encoded in rows (ratatui-image's
/// sliced protocols: kitty placeholders, sixel bands, half-block rows), so a picture the
/// review scrolled half out of view still shows the half on screen.
#[derive(Clone)]
pub struct Picture {
    /// The encoded picture.
    pub protocol: Arc<SlicedProtocol>,
    /// The cells it covers (columns, rows).
    pub cells: (u16, u16),
}

impl fmt::Debug for Picture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Picture({}×{} cells)", self.cells.0, self.cells.1)
    }
}

impl PartialEq for Picture {
    fn eq(&self, other: &Picture) -> bool {
        Arc::ptr_eq(&self.protocol, &other.protocol)
    }
}

/// A decoded image, shrunk to the most pixels a picture of it can show: what a new width
/// is encoded from without decoding again.
#[derive(Clone)]
pub struct SourceImage(pub Arc<DynamicImage>);

impl fmt::Debug for SourceImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SourceImage({}×{})", self.0.width(), self.0.height())
    }
}

impl PartialEq for SourceImage {
    fn eq(&self, other: &SourceImage) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// What a decode (or a new width's encoding) gives back.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The image's own size in pixels.
    pub pixels: (u32, u32),
    /// The image to encode other widths from.
    pub source: SourceImage,
    /// The picture for the width asked.
    pub picture: Picture,
}

/// The cell size assumed when the terminal does not tell (about 1:2, as most fonts).
pub const DEFAULT_FONT: (u16, u16) = (10, 20);
