//! DPoP (RFC 9449, SEP-1932): tokens bound to a key mcpick keeps for each server, so a
//! token that leaks is useless without the key. Every token request and every request to
//! the server carries a fresh proof, a JWT signed with that key naming the method and URL
//! (and, beside a token, its hash); a server that wants a nonce in them says so once
//! (`use_dpop_nonce` with a `DPoP-Nonce` header) and the request is sent again with it.
//!
//! The key is P-256 (ES256, which every DPoP server takes), made on first use and kept
//! owner-only beside the server's token file.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use thiserror::Error;

use super::jose::{JoseError, SigningKey};
use crate::config::Dpop;

/// Why tokens cannot be bound, or a proof cannot be made.
#[derive(Debug, Clone, Error)]
pub enum DpopError {
    /// `oauth.dpop = "required"` where the authorization server does not offer it.
    #[error(
        "`oauth.dpop = \"required\"`, but the authorization server does not offer DPoP with ES256 (no `dpop_signing_alg_values_supported` with it in its metadata): set `oauth.dpop = \"auto\"` to sign in with plain bearer tokens"
    )]
    NotOffered,
    /// A key that is no EC key.
    #[error("a DPoP key must be an EC key")]
    NotEc,
    /// Nowhere to keep the key.
    #[error("this platform has no data directory to keep a key in")]
    NoDataDir,
    /// The key file is there but cannot be read (its tokens may still be good).
    #[error("cannot read the DPoP key {path}: {reason}")]
    Unreadable {
        /// The key file.
        path: String,
        /// The OS error.
        reason: String,
    },
    /// A new key cannot be written.
    #[error("cannot write the DPoP key {path}: {reason}")]
    Unwritable {
        /// The key file.
        path: String,
        /// The OS error.
        reason: String,
    },
    /// The key could not be made or could not sign.
    #[error(transparent)]
    Key(#[from] JoseError),
}

/// The only algorithm mcpick's proofs use.
const ALGORITHM: &str = "ES256";

/// What happened to a DPoP key that the user must hear (a corrupt key replaced), kept
/// until a command says it on stderr ([`take_notices`]): the log alone is not read.
static NOTICES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn tell(notice: String) {
    NOTICES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(notice);
}

/// The notices about DPoP keys since the last call, to say on stderr.
pub fn take_notices() -> Vec<String> {
    std::mem::take(&mut *NOTICES.lock().unwrap_or_else(|e| e.into_inner()))
}

/// The file holding `server`'s DPoP key: `<data dir>/auth/<server>.dpop.pem`.
pub fn key_path(server: &str) -> Option<PathBuf> {
    crate::config::data_dir().map(|dir| dir.join("auth").join(format!("{server}.dpop.pem")))
}

/// Deletes `server`'s DPoP key (its tokens are gone with it); `Ok(false)` when none.
pub fn remove_key(server: &str) -> std::io::Result<bool> {
    let Some(path) = key_path(server) else {
        return Ok(false);
    };
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Whether an authorization server's metadata offers DPoP with ES256.
pub fn offered(metadata_fields: &HashMap<String, Value>) -> bool {
    metadata_fields
        .get("dpop_signing_alg_values_supported")
        .and_then(Value::as_array)
        .is_some_and(|algs| algs.iter().any(|alg| alg == ALGORITHM))
}

/// Whether tokens are to be bound under `mode`, given what the authorization server
/// offers; an error for `required` where it is not offered.
pub fn wanted(mode: Dpop, offered: bool) -> Result<bool, DpopError> {
    match mode {
        Dpop::Off => Ok(false),
        Dpop::Auto => Ok(offered),
        Dpop::Required if offered => Ok(true),
        Dpop::Required => Err(DpopError::NotOffered),
    }
}

/// Whether a token type is a DPoP-bound one (`token_type: "DPoP"`, case-insensitive).
pub fn is_bound_type(token_type: &str) -> bool {
    token_type.eq_ignore_ascii_case("dpop")
}

/// Whether a `WWW-Authenticate` challenge or an OAuth error asks for a DPoP nonce.
pub fn asks_for_nonce(text: &str) -> bool {
    text.contains("use_dpop_nonce")
}

/// A URL as a proof's `htu` names it: without query and fragment (RFC 9449 §4.2), and
/// without a user name or password.
pub fn htu(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            parsed.set_query(None);
            parsed.set_fragment(None);
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.to_string()
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or(url).to_string(),
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A server's DPoP key and the nonces its servers asked for: makes proofs.
pub struct Prover {
    key: SigningKey,
    jwk: Value,
    nonces: std::sync::Mutex<HashMap<String, String>>,
}

impl std::fmt::Debug for Prover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prover")
            .field("thumbprint", &self.thumbprint())
            .finish_non_exhaustive()
    }
}

impl Prover {
    /// A prover signing with `key` (an EC key: DPoP keys are made here).
    pub fn new(key: SigningKey) -> Result<Prover, DpopError> {
        let jwk = key.public_jwk().ok_or(DpopError::NotEc)?;
        Ok(Prover {
            key,
            jwk,
            nonces: Default::default(),
        })
    }

    /// A prover with a key made now, kept nowhere (tests).
    #[cfg(test)]
    pub fn ephemeral() -> Result<Prover, DpopError> {
        let pem = SigningKey::generate_p256_pem()?;
        Prover::new(SigningKey::from_pem(pem.as_bytes(), "a new key")?)
    }

    /// `server`'s prover, with its kept key, or `None` when it has none.
    pub fn stored(server: &str) -> Option<Prover> {
        let path = key_path(server)?;
        let pem = std::fs::read(&path).ok()?;
        let key = SigningKey::from_pem(&pem, &path.display().to_string()).ok()?;
        Prover::new(key).ok()
    }

    /// `server`'s prover: its kept key, or a new one, kept owner-only, when there is
    /// none or the file holds no key (tokens bound to it were useless anyway). A key file
    /// that cannot be read is an error, not replaced: its tokens may still be good.
    pub fn for_server(server: &str) -> Result<Prover, DpopError> {
        let path = key_path(server).ok_or(DpopError::NoDataDir)?;
        match std::fs::read(&path) {
            Ok(pem) => match SigningKey::from_pem(&pem, &path.display().to_string())
                .map_err(DpopError::from)
                .and_then(Prover::new)
            {
                Ok(prover) => return Ok(prover),
                Err(why) => {
                    tracing::warn!(server, path = %path.display(), %why, "the DPoP key file holds no usable key; making a new one");
                    // Kept, not overwritten: it may be a key another copy still uses.
                    let kept = path.with_extension("pem.corrupt");
                    let moved = std::fs::rename(&path, &kept).is_ok();
                    tell(format!(
                        "the DPoP key for `{server}` ({}) held no usable key ({why}); {}a new key was made, so tokens bound to the old one are signed in again",
                        path.display(),
                        if moved {
                            format!("it is kept as {}, and ", kept.display())
                        } else {
                            String::new()
                        }
                    ));
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(DpopError::Unreadable {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                });
            }
        }
        let pem = SigningKey::generate_p256_pem()?;
        crate::cache::write_private(&path, pem.as_bytes()).map_err(|e| DpopError::Unwritable {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Prover::new(SigningKey::from_pem(pem.as_bytes(), "a new key")?)
    }

    /// The key's JWK SHA-256 thumbprint (RFC 7638), base64url: what a bound token's
    /// `cnf.jkt` names.
    pub fn thumbprint(&self) -> String {
        // RFC 7638: the required members in lexicographic order, no whitespace.
        let canonical = format!(
            r#"{{"crv":{},"kty":"EC","x":{},"y":{}}}"#,
            self.jwk["crv"], self.jwk["x"], self.jwk["y"]
        );
        URL_SAFE_NO_PAD.encode(ring::digest::digest(
            &ring::digest::SHA256,
            canonical.as_bytes(),
        ))
    }

    /// The nonce asked for at `url` last, if any. Kept per URL (without its query), not
    /// per origin: an authorization server and an MCP server often share one, each with
    /// nonces of its own.
    pub fn nonce_for(&self, url: &str) -> Option<String> {
        let nonces = self.nonces.lock().unwrap_or_else(|e| e.into_inner());
        nonces.get(&htu(url)).cloned()
    }

    /// Remembers the nonce the server at `url` gave.
    pub fn learn_nonce(&self, url: &str, nonce: &str) {
        let mut nonces = self.nonces.lock().unwrap_or_else(|e| e.into_inner());
        nonces.insert(htu(url), nonce.to_string());
    }

    /// A proof for a `method` request to `url`, now, with the nonce asked for there and,
    /// beside an access token, the token's hash; and the nonce it carries (a server that
    /// asks for another one is worth one more try).
    pub fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
    ) -> Result<(String, Option<String>), DpopError> {
        let nonce = self.nonce_for(url);
        let proof = self.proof_at(method, url, access_token, nonce.as_deref(), now_secs())?;
        Ok((proof, nonce))
    }

    /// [`Prover::proof`] with its nonce and time given.
    pub fn proof_at(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
        now: u64,
    ) -> Result<String, DpopError> {
        let mut claims = json!({
            "jti": self.key.fresh_id()?,
            "htm": method,
            "htu": htu(url),
            "iat": now,
        });
        if let Some(token) = access_token {
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(ring::digest::digest(
                &ring::digest::SHA256,
                token.as_bytes()
            )));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        Ok(self
            .key
            .sign(json!({"typ": "dpop+jwt", "jwk": self.jwk}), &claims)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature;

    fn decode(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    /// Checks a proof as a DPoP server does: header, signature by its own `jwk`.
    fn verified(proof: &str) -> (Value, Value) {
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3, "{proof}");
        let header = decode(parts[0]);
        let jwk = &header["jwk"];
        let mut point = vec![4u8];
        point.extend(URL_SAFE_NO_PAD.decode(jwk["x"].as_str().unwrap()).unwrap());
        point.extend(URL_SAFE_NO_PAD.decode(jwk["y"].as_str().unwrap()).unwrap());
        signature::UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, point)
            .verify(
                format!("{}.{}", parts[0], parts[1]).as_bytes(),
                &URL_SAFE_NO_PAD.decode(parts[2]).unwrap(),
            )
            .expect("the proof verifies with its own jwk");
        (header, decode(parts[1]))
    }

    #[test]
    fn a_proof_has_the_claims_rfc_9449_asks_for() {
        let prover = Prover::ephemeral().unwrap();
        let proof = prover
            .proof_at(
                "POST",
                "https://mcp.example.com/mcp?key=k#top",
                Some("the-token"),
                Some("n-1"),
                1_000,
            )
            .unwrap();
        let (header, claims) = verified(&proof);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert_eq!(header["jwk"]["crv"], "P-256");
        assert!(header["jwk"].get("d").is_none(), "no private part");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(claims["iat"], 1_000);
        assert_eq!(claims["nonce"], "n-1");
        // ath = base64url(SHA-256("the-token")).
        assert_eq!(claims["ath"], "wqc_z2HfvcrceaELozCy7162b8Cmc17Wm3lrs8l7l64");
        assert!(claims["jti"].as_str().unwrap().len() >= 16);
    }

    #[test]
    fn every_proof_is_fresh_and_a_token_request_has_no_ath() {
        let prover = Prover::ephemeral().unwrap();
        let jtis: std::collections::HashSet<String> = (0..50)
            .map(|_| {
                let (_, claims) = verified(
                    &prover
                        .proof("GET", "http://127.0.0.1:1/mcp", None)
                        .unwrap()
                        .0,
                );
                assert!(claims.get("ath").is_none());
                assert!(claims.get("nonce").is_none());
                claims["jti"].as_str().unwrap().to_string()
            })
            .collect();
        assert_eq!(jtis.len(), 50);
    }

    #[test]
    fn nonces_are_kept_per_url_and_a_proof_says_which_it_carries() {
        let prover = Prover::ephemeral().unwrap();
        // One origin, two servers (the authorization server and the MCP server).
        prover.learn_nonce("http://one.test:1/token", "as-n");
        prover.learn_nonce("http://one.test:1/mcp?key=k", "rs-n");
        let (proof, used) = prover
            .proof("POST", "http://one.test:1/token", None)
            .unwrap();
        assert_eq!(verified(&proof).1["nonce"], "as-n");
        assert_eq!(used.as_deref(), Some("as-n"));
        let (proof, used) = prover
            .proof("POST", "http://one.test:1/mcp", Some("t"))
            .unwrap();
        assert_eq!(verified(&proof).1["nonce"], "rs-n");
        assert_eq!(used.as_deref(), Some("rs-n"));
        let (proof, used) = prover.proof("GET", "http://other.test/mcp", None).unwrap();
        assert!(verified(&proof).1.get("nonce").is_none());
        assert_eq!(used, None);
    }

    #[test]
    fn htu_has_no_query_fragment_or_credentials() {
        assert_eq!(
            htu("https://user:pw@mcp.example.com:8443/mcp?key=k#f"),
            "https://mcp.example.com:8443/mcp"
        );
    }

    #[test]
    fn the_thumbprint_is_rfc_7638s() {
        // RFC 7638 §3.1 computes over the canonical members; check against a fixed key's
        // canonical JSON hashed independently.
        let prover = Prover::ephemeral().unwrap();
        let jwk = &prover.jwk;
        let canonical = serde_json::to_string(&json!({
            "crv": jwk["crv"], "kty": "EC", "x": jwk["x"], "y": jwk["y"]
        }))
        .unwrap();
        let expected = URL_SAFE_NO_PAD.encode(ring::digest::digest(
            &ring::digest::SHA256,
            canonical.as_bytes(),
        ));
        assert_eq!(prover.thumbprint(), expected);
        assert_eq!(prover.thumbprint().len(), 43);
    }

    #[test]
    fn the_mode_decides_with_what_the_server_offers() {
        let offers = HashMap::from([(
            "dpop_signing_alg_values_supported".to_string(),
            json!(["RS256", "ES256"]),
        )]);
        let only_rsa = HashMap::from([(
            "dpop_signing_alg_values_supported".to_string(),
            json!(["RS256"]),
        )]);
        assert!(offered(&offers));
        assert!(!offered(&only_rsa));
        assert!(!offered(&HashMap::new()));
        assert!(matches!(wanted(Dpop::Auto, true), Ok(true)));
        assert!(matches!(wanted(Dpop::Auto, false), Ok(false)));
        assert!(matches!(wanted(Dpop::Off, true), Ok(false)));
        assert!(matches!(wanted(Dpop::Required, true), Ok(true)));
        let refused = wanted(Dpop::Required, false).unwrap_err();
        assert!(matches!(refused, DpopError::NotOffered), "{refused}");
        assert!(
            refused.to_string().contains("oauth.dpop = \"auto\""),
            "{refused}"
        );
    }
}
