//! What the container image is built from: fully qualified base images (podman and buildah
//! refuse short names), a distroless runtime, a numeric non-root user, the health probe.

const DOCKERFILE: &str = include_str!("../../docker/Dockerfile");

#[test]
fn the_image_is_distroless_non_root_and_names_its_bases_in_full() {
    let bases: Vec<&str> = DOCKERFILE
        .lines()
        .filter_map(|l| l.strip_prefix("FROM "))
        .map(|l| l.split_whitespace().next().unwrap_or_default())
        .collect();
    assert_eq!(bases.len(), 2, "{bases:?}");
    for base in &bases {
        let registry = base.split('/').next().unwrap_or_default();
        assert!(
            registry.contains('.') && base.contains(':'),
            "`{base}` is not fully qualified (registry/name:tag)"
        );
    }
    assert!(
        bases[1].starts_with("gcr.io/distroless/"),
        "runtime: {}",
        bases[1]
    );
    let runtime = &DOCKERFILE[DOCKERFILE.rfind("FROM ").unwrap_or(0)..];
    let user = runtime
        .lines()
        .find_map(|l| l.strip_prefix("USER "))
        .expect("the runtime stage sets USER");
    let uid: u32 = user.split(':').next().unwrap_or_default().parse().unwrap();
    assert!(uid >= 1000, "non-root numeric uid: {user}");
    assert!(
        !runtime.contains("RUN "),
        "nothing runs in the runtime stage (no shell)"
    );
    assert!(runtime.contains(r#"CMD ["plaincall", "health""#));
}
