//! A server's `oauth` table: how its tokens are obtained (a person in a browser, or a
//! machine grant) and the settings each way takes.

use std::fmt;
use std::path::PathBuf;

use serde::Deserialize;

/// OAuth client settings of one server (`oauth = { ... }`); all optional: by default mcpick
/// registers itself with the authorization server.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct OAuthConfig {
    /// A client id registered with the authorization server beforehand.
    pub client_id: Option<String>,
    /// Its secret, for a confidential client.
    pub client_secret: Option<String>,
    /// Scopes to ask for instead of those the server suggests.
    pub scopes: Vec<String>,
    /// An HTTPS URL of a Client ID Metadata Document describing mcpick, used as the client
    /// id where the authorization server supports it.
    pub client_metadata_url: Option<String>,
    /// How tokens are obtained: a person in a browser, or a machine grant.
    pub grant: OAuthGrant,
    /// A PEM private key signing `private_key_jwt` client assertions (client credentials).
    pub private_key: Option<PathBuf>,
    /// Whom those assertions are for (`aud`): the authorization server's issuer (the
    /// default, RFC 7523bis) or its token endpoint (as Okta wants).
    pub assertion_audience: AssertionAudience,
    /// The key's id at the authorization server (the assertion's `kid`), where it holds
    /// more than one of the client's keys.
    pub key_id: Option<String>,
    /// The workload's JWT for the `jwt_bearer` grant.
    pub assertion: Option<SecretSource>,
    /// Whether tokens are bound to a key of mcpick's (DPoP, RFC 9449).
    pub dpop: Dpop,
}

/// DPoP (RFC 9449) for a server's tokens (`oauth.dpop`): each token is bound to a key
/// mcpick keeps for the server, and every request proves it holds that key, so a token
/// that leaks is of no use to whoever finds it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dpop {
    /// `"auto"`: when the authorization server offers it (ES256 among its
    /// `dpop_signing_alg_values_supported`).
    #[default]
    Auto,
    /// `"required"`: sign-in fails where it is not offered, and an unbound token is not used.
    Required,
    /// `"off"`: plain bearer tokens, even where DPoP is offered.
    Off,
}

impl Dpop {
    /// The setting as the config spells it.
    pub fn name(self) -> &'static str {
        match self {
            Dpop::Auto => "auto",
            Dpop::Required => "required",
            Dpop::Off => "off",
        }
    }
}

/// The `aud` of a `private_key_jwt` assertion (`oauth.assertion_audience`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AssertionAudience {
    /// `"issuer"`: the authorization server's issuer identifier.
    #[default]
    Issuer,
    /// `"token_endpoint"`: its token endpoint's URL.
    TokenEndpoint,
}

/// How a server's tokens are obtained (`oauth.grant`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum OAuthGrant {
    /// `authorization_code`: a person signs in in a browser (`mcpick auth login`).
    #[default]
    AuthorizationCode,
    /// `client_credentials`: the client's own secret or signed assertion.
    ClientCredentials,
    /// `jwt_bearer`: a JWT the workload holds (Kubernetes, GitHub Actions, a cloud's
    /// metadata service) is the grant (RFC 7523, SEP-1933).
    JwtBearer,
    /// `enterprise`: the company's identity provider exchanges an ID token for an identity
    /// assertion (ID-JAG), which the server's authorization server takes (SEP-990).
    Enterprise(Box<EnterpriseIdp>),
}

impl OAuthGrant {
    /// The grant's name as the config spells it.
    pub fn name(&self) -> &'static str {
        match self {
            OAuthGrant::AuthorizationCode => "authorization_code",
            OAuthGrant::ClientCredentials => "client_credentials",
            OAuthGrant::JwtBearer => "jwt_bearer",
            OAuthGrant::Enterprise(_) => "enterprise",
        }
    }
}

/// The identity provider of enterprise-managed authorization.
#[derive(Clone, PartialEq, Eq)]
pub struct EnterpriseIdp {
    /// Its token endpoint, where the ID token is exchanged (`oauth.idp_token_endpoint`).
    pub token_endpoint: String,
    /// mcpick's client id there, if it needs one.
    pub client_id: Option<String>,
    /// And its secret, for a confidential client.
    pub client_secret: Option<String>,
    /// The user's ID token from it (`oauth.id_token`, `id_token_file`, `id_token_command`).
    pub id_token: SecretSource,
}

impl fmt::Debug for EnterpriseIdp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnterpriseIdp")
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<hidden>"),
            )
            .field("id_token", &self.id_token)
            .finish()
    }
}

/// Where a secret that changes (a workload's JWT, an ID token) comes from, read each time
/// a token is obtained.
#[derive(Clone, PartialEq, Eq)]
pub enum SecretSource {
    /// Given in the config (usually as `${VAR}`).
    Value(String),
    /// A file's contents, trimmed (Kubernetes' projected service account token).
    File(PathBuf),
    /// What a `sh -c` command prints, trimmed.
    Command(String),
}

impl fmt::Debug for SecretSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretSource::Value(_) => f.write_str("Value(<hidden>)"),
            SecretSource::File(path) => f.debug_tuple("File").field(path).finish(),
            // `${VAR}`s are expanded in it: it may hold a secret.
            SecretSource::Command(_) => f.write_str("Command(<hidden>)"),
        }
    }
}

impl fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthConfig")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<hidden>"),
            )
            .field("scopes", &self.scopes)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("grant", &self.grant)
            .field("private_key", &self.private_key)
            .field("assertion_audience", &self.assertion_audience)
            .field("key_id", &self.key_id)
            .field("assertion", &self.assertion)
            .field("dpop", &self.dpop)
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOAuth {
    client_id: Option<String>,
    client_secret: Option<String>,
    scopes: Option<Vec<String>>,
    client_metadata_url: Option<String>,
    grant: Option<String>,
    private_key: Option<String>,
    assertion_audience: Option<String>,
    key_id: Option<String>,
    assertion: Option<String>,
    assertion_file: Option<String>,
    assertion_command: Option<String>,
    idp_token_endpoint: Option<String>,
    idp_client_id: Option<String>,
    idp_client_secret: Option<String>,
    id_token: Option<String>,
    id_token_file: Option<String>,
    id_token_command: Option<String>,
    dpop: Option<String>,
}

impl RawOAuth {
    /// Every string value as written, for the `${input:ID}` scan.
    pub(super) fn strings(&self) -> impl Iterator<Item = &String> {
        [
            &self.client_id,
            &self.client_secret,
            &self.client_metadata_url,
            &self.private_key,
            &self.assertion_audience,
            &self.key_id,
            &self.assertion,
            &self.assertion_file,
            &self.assertion_command,
            &self.idp_token_endpoint,
            &self.idp_client_id,
            &self.idp_client_secret,
            &self.id_token,
            &self.id_token_file,
            &self.id_token_command,
            &self.dpop,
        ]
        .into_iter()
        .flatten()
    }
}

/// Builds the `oauth` settings from the table as written: `expand` expands a field's
/// `${VAR}`s (named by its key), `server_error` makes the server's config error, `path`
/// makes a path of a file setting (`~/` is home).
pub(super) fn parse<E>(
    oauth: RawOAuth,
    expand: &dyn Fn(&str, &str) -> Result<String, E>,
    server_error: &dyn Fn(String) -> E,
    path: &dyn Fn(&str) -> PathBuf,
) -> Result<OAuthConfig, E> {
    let read = Reader {
        expand,
        error: server_error,
        path,
    };
    let client = read.client(
        oauth.client_metadata_url,
        oauth.client_id,
        oauth.client_secret,
    )?;
    let (private_key, key_id, assertion_audience) =
        read.signing_key(oauth.private_key, oauth.key_id, oauth.assertion_audience)?;
    let assertion = read.secret_source(
        "assertion",
        oauth.assertion,
        oauth.assertion_file,
        oauth.assertion_command,
    )?;
    let id_token = read.secret_source(
        "id_token",
        oauth.id_token,
        oauth.id_token_file,
        oauth.id_token_command,
    )?;
    let idp = IdpSettings {
        token_endpoint: read.field("idp_token_endpoint", oauth.idp_token_endpoint)?,
        client_id: read.field("idp_client_id", oauth.idp_client_id)?,
        client_secret: read.field("idp_client_secret", oauth.idp_client_secret)?,
        id_token,
    };
    let dpop = read.dpop(oauth.dpop)?;
    let mut config = OAuthConfig {
        client_id: client.id,
        client_secret: client.secret,
        scopes: oauth.scopes.unwrap_or_default(),
        client_metadata_url: client.metadata_url,
        grant: OAuthGrant::AuthorizationCode,
        private_key,
        assertion_audience,
        key_id,
        assertion,
        dpop,
    };
    let grant_name = oauth.grant.as_deref().unwrap_or("authorization_code");
    read.check_grant_takes(grant_name, &config, &idp)?;
    config.grant = read.grant(grant_name, &config, idp)?;
    Ok(config)
}

/// How [`parse`] reads the table's values: `expand` expands a field's `${VAR}`s (named by
/// its key), `error` makes the server's config error, `path` makes a path of a file
/// setting.
struct Reader<'a, E> {
    expand: &'a dyn Fn(&str, &str) -> Result<String, E>,
    error: &'a dyn Fn(String) -> E,
    path: &'a dyn Fn(&str) -> PathBuf,
}

/// The client mcpick is at the authorization server, as given (expanded, checked).
struct ClientSettings {
    metadata_url: Option<String>,
    id: Option<String>,
    secret: Option<String>,
}

/// The identity provider's settings as given (`oauth.idp_*`, `oauth.id_token…`), which
/// `grant = "enterprise"` takes.
struct IdpSettings {
    token_endpoint: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    id_token: Option<SecretSource>,
}

impl<E> Reader<'_, E> {
    /// A field's value, expanded.
    fn field(&self, name: &str, value: Option<String>) -> Result<Option<String>, E> {
        value.map(|v| (self.expand)(name, &v)).transpose()
    }

    /// The client mcpick is at the authorization server: its metadata document's URL
    /// (https only), its id, and the secret that needs that id.
    fn client(
        &self,
        metadata_url: Option<String>,
        id: Option<String>,
        secret: Option<String>,
    ) -> Result<ClientSettings, E> {
        let client_metadata_url = self.field("client_metadata_url", metadata_url)?;
        if let Some(cimd) = &client_metadata_url
            && !cimd.starts_with("https://")
        {
            return Err((self.error)(format!(
                "`oauth.client_metadata_url` must be an https:// URL (got {cimd:?})"
            )));
        }
        let client_id = self.field("client_id", id)?;
        let client_secret = self.field("client_secret", secret)?;
        if client_secret.is_some() && client_id.is_none() {
            return Err((self.error)(
                "`oauth.client_secret` needs the `oauth.client_id` it belongs to".into(),
            ));
        }
        Ok(ClientSettings {
            metadata_url: client_metadata_url,
            id: client_id,
            secret: client_secret,
        })
    }

    /// The `private_key_jwt` key file and what its assertions say (`key_id`,
    /// `assertion_audience`), which are errors without the key.
    fn signing_key(
        &self,
        private_key: Option<String>,
        key_id: Option<String>,
        assertion_audience: Option<String>,
    ) -> Result<(Option<PathBuf>, Option<String>, AssertionAudience), E> {
        let private_key = self
            .field("private_key", private_key)?
            .map(|p| (self.path)(&p));
        let key_id = self.field("key_id", key_id)?;
        let assertion_audience = match self
            .field("assertion_audience", assertion_audience)?
            .as_deref()
        {
            None | Some("issuer") => AssertionAudience::Issuer,
            Some("token_endpoint") => AssertionAudience::TokenEndpoint,
            Some(other) => {
                return Err((self.error)(format!(
                    "`oauth.assertion_audience = {other:?}` is neither \"issuer\" (the default) nor \"token_endpoint\""
                )));
            }
        };
        if private_key.is_none() {
            let stray = if key_id.is_some() {
                Some("key_id")
            } else if assertion_audience != AssertionAudience::Issuer {
                Some("assertion_audience")
            } else {
                None
            };
            if let Some(stray) = stray {
                return Err((self.error)(format!(
                    "`oauth.{stray}` is about the assertion `oauth.private_key` signs, and there is no `private_key`"
                )));
            }
        }
        Ok((private_key, key_id, assertion_audience))
    }

    /// A secret given one of three ways (`oauth.NAME`, `NAME_file`, `NAME_command`), or
    /// none; several is an error.
    fn secret_source(
        &self,
        name: &str,
        value: Option<String>,
        file: Option<String>,
        command: Option<String>,
    ) -> Result<Option<SecretSource>, E> {
        let given = [value.is_some(), file.is_some(), command.is_some()];
        if given.iter().filter(|g| **g).count() > 1 {
            return Err((self.error)(format!(
                "give one of `oauth.{name}`, `oauth.{name}_file` and `oauth.{name}_command`, not several"
            )));
        }
        Ok(if let Some(value) = self.field(name, value)? {
            Some(SecretSource::Value(value))
        } else if let Some(file) = self.field(&format!("{name}_file"), file)? {
            Some(SecretSource::File((self.path)(&file)))
        } else {
            self.field(&format!("{name}_command"), command)?
                .map(SecretSource::Command)
        })
    }

    /// `oauth.dpop`: "auto" (the default), "required" or "off".
    fn dpop(&self, value: Option<String>) -> Result<Dpop, E> {
        match self.field("dpop", value)?.as_deref() {
            None | Some("auto") => Ok(Dpop::Auto),
            Some("required") => Ok(Dpop::Required),
            Some("off") => Ok(Dpop::Off),
            Some(other) => Err((self.error)(format!(
                "`oauth.dpop = {other:?}` is none of \"auto\" (the default: when the authorization server offers it), \"required\" and \"off\""
            ))),
        }
    }

    /// Whether `grant_name` is a grant mcpick knows, and takes every setting given of
    /// those that belong to one grant: anything else given is a mistake worth saying.
    fn check_grant_takes(
        &self,
        grant_name: &str,
        config: &OAuthConfig,
        idp: &IdpSettings,
    ) -> Result<(), E> {
        let given: Vec<&str> = [
            ("private_key", config.private_key.is_some()),
            ("assertion", config.assertion.is_some()),
            ("idp_token_endpoint", idp.token_endpoint.is_some()),
            ("idp_client_id", idp.client_id.is_some()),
            ("idp_client_secret", idp.client_secret.is_some()),
            ("id_token", idp.id_token.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
        .collect();
        let takes: &[&str] = match grant_name {
            "authorization_code" => &[],
            "client_credentials" => &["private_key"],
            "jwt_bearer" => &["assertion"],
            "enterprise" => &[
                "idp_token_endpoint",
                "idp_client_id",
                "idp_client_secret",
                "id_token",
            ],
            other => {
                return Err((self.error)(format!(
                    "`oauth.grant = {other:?}` is not a grant mcpick knows: use \"authorization_code\" (a person signs in; the default), \"client_credentials\", \"jwt_bearer\" or \"enterprise\""
                )));
            }
        };
        if let Some(stray) = given.iter().find(|name| !takes.contains(name)) {
            return Err((self.error)(format!(
                "`oauth.{stray}` is not used by `grant = \"{grant_name}\"`{}",
                match *stray {
                    "private_key" => ": it is for `grant = \"client_credentials\"`",
                    "assertion" => ": it is for `grant = \"jwt_bearer\"`",
                    _ => ": it is for `grant = \"enterprise\"`",
                }
            )));
        }
        Ok(())
    }

    /// The grant `grant_name` names (one [`Reader::check_grant_takes`] knows), with what
    /// it needs of `config` and `idp` checked there.
    fn grant(
        &self,
        grant_name: &str,
        config: &OAuthConfig,
        idp: IdpSettings,
    ) -> Result<OAuthGrant, E> {
        let need = |what: &str| (self.error)(format!("`grant = \"{grant_name}\"` needs {what}"));
        Ok(match grant_name {
            "client_credentials" => {
                if config.client_id.is_none() {
                    return Err(need("`oauth.client_id`"));
                }
                match (&config.client_secret, &config.private_key) {
                    (None, None) => {
                        return Err(need(
                            "`oauth.client_secret` or `oauth.private_key` (a PEM key file)",
                        ));
                    }
                    (Some(_), Some(_)) => {
                        return Err((self.error)(
                            "give `oauth.client_secret` or `oauth.private_key`, not both".into(),
                        ));
                    }
                    _ => OAuthGrant::ClientCredentials,
                }
            }
            "jwt_bearer" => {
                if config.assertion.is_none() {
                    return Err(need(
                        "the workload's JWT: `oauth.assertion_file` (a path), `oauth.assertion_command` or `oauth.assertion`",
                    ));
                }
                OAuthGrant::JwtBearer
            }
            "enterprise" => {
                if config.client_id.is_none() {
                    return Err(need(
                        "`oauth.client_id` (mcpick's client at the server's authorization server)",
                    ));
                }
                let Some(token_endpoint) = idp.token_endpoint else {
                    return Err(need(
                        "`oauth.idp_token_endpoint` (the identity provider's token endpoint)",
                    ));
                };
                let Some(id_token) = idp.id_token else {
                    return Err(need(
                        "the user's ID token: `oauth.id_token_file`, `oauth.id_token_command` or `oauth.id_token`",
                    ));
                };
                if idp.client_secret.is_some() && idp.client_id.is_none() {
                    return Err((self.error)(
                        "`oauth.idp_client_secret` needs the `oauth.idp_client_id` it belongs to"
                            .into(),
                    ));
                }
                OAuthGrant::Enterprise(Box::new(EnterpriseIdp {
                    token_endpoint,
                    client_id: idp.client_id,
                    client_secret: idp.client_secret,
                    id_token,
                }))
            }
            _ => OAuthGrant::AuthorizationCode,
        })
    }
}
