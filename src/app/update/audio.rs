//! Playing a review message's audio and stopping it.

use crate::app::{App, Effect, Playing};

impl App {
    /// Plays message `index`'s audio, stopping any that plays.
    pub(in crate::app) fn play_audio(
        &mut self,
        bytes: Vec<u8>,
        extension: String,
        index: usize,
    ) -> Vec<Effect> {
        let mut effects = self.stop_audio();
        let id = self.fresh_id();
        self.playing = Some(Playing { id, index });
        effects.push(Effect::PlayAudio {
            id,
            bytes,
            extension,
            player: self.options.audio_player.clone(),
        });
        effects
    }

    /// Stops the audio playing, if any.
    pub(in crate::app) fn stop_audio(&mut self) -> Vec<Effect> {
        match self.playing.take() {
            Some(playing) => vec![Effect::StopAudio { id: playing.id }],
            None => Vec::new(),
        }
    }

    /// The player of request `id` ended: on its own, or failing (`Err` says why).
    pub(in crate::app) fn on_audio_ended(
        &mut self,
        id: u64,
        result: Result<(), String>,
    ) -> Vec<Effect> {
        if self.playing.as_ref().is_none_or(|p| p.id != id) {
            // Stopped by hand, or another one started since.
            return Vec::new();
        }
        self.playing = None;
        if let Err(error) = result {
            self.warn(error);
        }
        Vec::new()
    }
}
