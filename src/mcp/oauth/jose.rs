//! Signed JSON Web Tokens for OAuth: the `private_key_jwt` client assertion (RFC 7523),
//! signed with ring, which the TLS stack already builds. The algorithm follows the key:
//! P-256 signs ES256, P-384 ES384, RSA RS256.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{self, EcdsaKeyPair, RsaKeyPair};
use rustls::pki_types::PrivateKeyDer;
use rustls::pki_types::pem::PemObject;
use serde_json::{Value, json};
use thiserror::Error;

/// How long a client assertion stays valid (RFC 7523 wants it short-lived).
const ASSERTION_LIFETIME_SECS: u64 = 300;

/// Why a key could not be read or could not sign. `file` is the key file as shown to the
/// user; no error quotes the file's text.
#[derive(Debug, Clone, Error)]
pub enum JoseError {
    /// No PEM block at all.
    #[error(
        "no private key in {file}: give a PEM file with a `-----BEGIN PRIVATE KEY-----` block (`openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out key.pem` makes one)"
    )]
    NoKey {
        /// The key file.
        file: String,
    },
    /// A PEM block that does not parse.
    #[error("{file} is not a valid PEM private key")]
    NotPem {
        /// The key file.
        file: String,
    },
    /// PKCS#8 of a curve or size mcpick does not sign with.
    #[error(
        "the key in {file} is neither EC P-256, P-384 (with its public key) nor RSA of 2048 bits or more: `openssl pkey -in OLD -out {file}` rewrites an EC key with its public key"
    )]
    UnusableKey {
        /// The key file.
        file: String,
    },
    /// A PKCS#1 RSA key ring refuses.
    #[error("the RSA key in {file} cannot sign: {reason}")]
    RsaRefused {
        /// The key file.
        file: String,
        /// ring's reason.
        reason: String,
    },
    /// A SEC1 `EC PRIVATE KEY`, which wants converting first.
    #[error(
        "{file} is an `EC PRIVATE KEY` (SEC1): convert it to PKCS#8 with `openssl pkcs8 -topk8 -nocrypt -in {file} -out key.p8.pem` and name that"
    )]
    Sec1 {
        /// The key file.
        file: String,
    },
    /// Any other kind of key.
    #[error("{file} holds a kind of key mcpick cannot use")]
    OtherKind {
        /// The key file.
        file: String,
    },
    /// A new key could not be made.
    #[error("cannot make a key: no randomness from the system")]
    NoKeyMade,
    /// No random bits for a `jti`.
    #[error("no randomness from the system")]
    NoRandomness,
    /// ring could not sign.
    #[error("signing failed")]
    SigningFailed,
}

/// A private key that signs JWTs, with the JWS algorithm its kind implies.
pub struct SigningKey {
    key: Key,
    rng: SystemRandom,
}

enum Key {
    Ecdsa(EcdsaKeyPair, &'static str),
    Rsa(RsaKeyPair),
}

impl SigningKey {
    /// Reads a PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`, EC P-256 or P-384, or RSA) or
    /// PKCS#1 (`BEGIN RSA PRIVATE KEY`). `shown` names the file in errors. Errors never
    /// quote the file's text.
    pub fn from_pem(pem: &[u8], shown: &str) -> Result<SigningKey, JoseError> {
        let rng = SystemRandom::new();
        let file = || shown.to_string();
        let der = PrivateKeyDer::from_pem_slice(pem).map_err(|e| match e {
            rustls::pki_types::pem::Error::NoItemsFound => JoseError::NoKey { file: file() },
            _ => JoseError::NotPem { file: file() },
        })?;
        let key = match der {
            PrivateKeyDer::Pkcs8(pkcs8) => {
                let bytes = pkcs8.secret_pkcs8_der();
                if let Ok(pair) = EcdsaKeyPair::from_pkcs8(
                    &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
                    bytes,
                    &rng,
                ) {
                    Key::Ecdsa(pair, "ES256")
                } else if let Ok(pair) = EcdsaKeyPair::from_pkcs8(
                    &signature::ECDSA_P384_SHA384_FIXED_SIGNING,
                    bytes,
                    &rng,
                ) {
                    Key::Ecdsa(pair, "ES384")
                } else if let Ok(pair) = RsaKeyPair::from_pkcs8(bytes) {
                    Key::Rsa(pair)
                } else {
                    return Err(JoseError::UnusableKey { file: file() });
                }
            }
            PrivateKeyDer::Pkcs1(pkcs1) => {
                Key::Rsa(RsaKeyPair::from_der(pkcs1.secret_pkcs1_der()).map_err(|e| {
                    JoseError::RsaRefused {
                        file: file(),
                        reason: e.to_string(),
                    }
                })?)
            }
            PrivateKeyDer::Sec1(_) => {
                return Err(JoseError::Sec1 { file: file() });
            }
            _ => return Err(JoseError::OtherKind { file: file() }),
        };
        Ok(SigningKey { key, rng })
    }

    /// The JWS `alg` this key signs with.
    pub fn algorithm(&self) -> &'static str {
        match &self.key {
            Key::Ecdsa(_, alg) => alg,
            Key::Rsa(_) => "RS256",
        }
    }

    /// A fresh P-256 key (ES256) as PKCS#8 in PEM, for [`SigningKey::from_pem`].
    pub fn generate_p256_pem() -> Result<String, JoseError> {
        let rng = SystemRandom::new();
        let document =
            EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
                .map_err(|_| JoseError::NoKeyMade)?;
        let base64 = base64::engine::general_purpose::STANDARD.encode(document.as_ref());
        let mut pem = String::from("-----BEGIN PRIVATE KEY-----\n");
        for line in base64.as_bytes().chunks(64) {
            pem.push_str(&String::from_utf8_lossy(line));
            pem.push('\n');
        }
        pem.push_str("-----END PRIVATE KEY-----\n");
        Ok(pem)
    }

    /// The public half as a JWK (RFC 7517), members in RFC 7638's order: what a DPoP
    /// proof carries. Only EC keys: DPoP keys are made here, P-256.
    pub fn public_jwk(&self) -> Option<Value> {
        use ring::signature::KeyPair as _;
        let Key::Ecdsa(pair, alg) = &self.key else {
            return None;
        };
        // Uncompressed point: 0x04, then x and y of equal length.
        let point = pair.public_key().as_ref();
        let half = (point.len().checked_sub(1)?) / 2;
        let crv = if *alg == "ES384" { "P-384" } else { "P-256" };
        Some(json!({
            "crv": crv,
            "kty": "EC",
            "x": URL_SAFE_NO_PAD.encode(&point[1..1 + half]),
            "y": URL_SAFE_NO_PAD.encode(&point[1 + half..]),
        }))
    }

    /// 128 fresh random bits, base64url: a `jti`.
    pub fn fresh_id(&self) -> Result<String, JoseError> {
        random_id(&self.rng)
    }

    /// A compact JWS of `claims` with `header` (its `alg` set here).
    pub fn sign(&self, mut header: Value, claims: &Value) -> Result<String, JoseError> {
        header["alg"] = json!(self.algorithm());
        let mut input = URL_SAFE_NO_PAD.encode(header.to_string());
        input.push('.');
        input.push_str(&URL_SAFE_NO_PAD.encode(claims.to_string()));
        let signature = match &self.key {
            Key::Ecdsa(pair, _) => pair
                .sign(&self.rng, input.as_bytes())
                .map_err(|_| JoseError::SigningFailed)?
                .as_ref()
                .to_vec(),
            Key::Rsa(pair) => {
                let mut out = vec![0; pair.public().modulus_len()];
                pair.sign(
                    &signature::RSA_PKCS1_SHA256,
                    &self.rng,
                    input.as_bytes(),
                    &mut out,
                )
                .map_err(|_| JoseError::SigningFailed)?;
                out
            }
        };
        input.push('.');
        input.push_str(&URL_SAFE_NO_PAD.encode(signature));
        Ok(input)
    }

    /// A `private_key_jwt` client assertion (RFC 7523 §3): `iss` and `sub` the client id,
    /// `aud` the authorization server (its issuer, or token endpoint), valid five minutes
    /// from `now` (seconds since the epoch), with a fresh `jti`; `kid` names the key when
    /// given.
    pub fn client_assertion(
        &self,
        client_id: &str,
        audience: &str,
        key_id: Option<&str>,
        now: u64,
    ) -> Result<String, JoseError> {
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME_SECS,
            "jti": random_id(&self.rng)?,
        });
        let mut header = json!({"typ": "JWT"});
        if let Some(id) = key_id {
            header["kid"] = json!(id);
        }
        self.sign(header, &claims)
    }
}

/// 128 random bits, base64url: a `jti`.
fn random_id(rng: &SystemRandom) -> Result<String, JoseError> {
    let mut bytes = [0u8; 16];
    rng.fill(&mut bytes).map_err(|_| JoseError::NoRandomness)?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    fn p256_pem() -> Vec<u8> {
        let rng = SystemRandom::new();
        let document =
            EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
                .unwrap();
        let base64 = base64::engine::general_purpose::STANDARD.encode(document.as_ref());
        format!("-----BEGIN PRIVATE KEY-----\n{base64}\n-----END PRIVATE KEY-----\n").into_bytes()
    }

    #[test]
    fn a_client_assertion_has_the_claims_rfc_7523_asks_for_and_verifies() {
        let pem = p256_pem();
        let key = SigningKey::from_pem(&pem, "key.pem").unwrap();
        assert_eq!(key.algorithm(), "ES256");
        let jwt = key
            .client_assertion("ci-client", "https://as.example.com", None, 1_000)
            .unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        assert_eq!(decode(parts[0]), json!({"alg": "ES256", "typ": "JWT"}));
        let claims = decode(parts[1]);
        assert_eq!(claims["iss"], "ci-client");
        assert_eq!(claims["sub"], "ci-client");
        assert_eq!(claims["aud"], "https://as.example.com");
        assert_eq!(claims["iat"], 1_000);
        assert_eq!(claims["exp"], 1_300);
        let again = key
            .client_assertion("ci-client", "https://as.example.com", Some("key-2"), 1_000)
            .unwrap();
        assert_ne!(
            decode(again.split('.').nth(1).unwrap())["jti"],
            claims["jti"]
        );
        assert_eq!(
            decode(again.split('.').next().unwrap()),
            json!({"alg": "ES256", "typ": "JWT", "kid": "key-2"})
        );
        // The signature verifies with the key's public half.
        let KeyHolder(public) = public_of(&key);
        let message = format!("{}.{}", parts[0], parts[1]);
        signature::UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, public)
            .verify(
                message.as_bytes(),
                &URL_SAFE_NO_PAD.decode(parts[2]).unwrap(),
            )
            .expect("the signature verifies");
    }

    struct KeyHolder(Vec<u8>);

    fn public_of(key: &SigningKey) -> KeyHolder {
        use ring::signature::KeyPair as _;
        match &key.key {
            Key::Ecdsa(pair, _) => KeyHolder(pair.public_key().as_ref().to_vec()),
            Key::Rsa(_) => unreachable!(),
        }
    }

    #[test]
    fn unusable_keys_are_refused_with_what_to_do_and_never_quoted() {
        let no_key = SigningKey::from_pem(b"not a key", "k.pem").err().unwrap();
        assert!(matches!(no_key, JoseError::NoKey { .. }), "{no_key}");
        let no_key = no_key.to_string();
        assert!(no_key.contains("openssl genpkey"), "{no_key}");
        let body = base64::engine::general_purpose::STANDARD.encode([0x5a; 48]);
        let sec1 =
            format!("-----BEGIN EC PRIVATE KEY-----\n{body}\n-----END EC PRIVATE KEY-----\n");
        let error = SigningKey::from_pem(sec1.as_bytes(), "k.pem")
            .err()
            .unwrap();
        assert!(matches!(error, JoseError::Sec1 { .. }), "{error}");
        let error = error.to_string();
        assert!(error.contains("openssl pkcs8 -topk8"), "{error}");
        assert!(!error.contains(&body[..16]), "{error}");
    }
}
