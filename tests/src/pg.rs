//! A throwaway PostgreSQL database per test server, so tests run in parallel.

use sqlx::{Connection, Executor, PgConnection};

pub struct TempDatabase {
    pub url: String,
    admin_url: String,
    name: String,
}

impl TempDatabase {
    /// A fresh database on `SVC_TEST_DATABASE_URL`'s server, or `None` when unset.
    pub async fn create_if_configured() -> Option<TempDatabase> {
        let admin_url = std::env::var("SVC_TEST_DATABASE_URL")
            .ok()
            .filter(|u| !u.is_empty())?;
        let name = format!("svc_test_{}", svc_server::token::new_id("").to_lowercase());
        let mut conn = PgConnection::connect(&admin_url)
            .await
            .unwrap_or_else(|e| panic!("SVC_TEST_DATABASE_URL={admin_url} does not answer: {e}"));
        conn.execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .await
            .expect("create test database");
        let mut url = url::Url::parse(&admin_url).expect("SVC_TEST_DATABASE_URL is a URL");
        url.set_path(&name);
        Some(TempDatabase {
            url: url.into(),
            admin_url,
            name,
        })
    }
}

impl Drop for TempDatabase {
    fn drop(&mut self) {
        let (admin_url, name) = (self.admin_url.clone(), self.name.clone());
        // Drop runs inside the test's runtime, which cannot be blocked on: a thread with
        // its own runtime drops the database.
        let dropper = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            runtime.block_on(async {
                let mut conn = PgConnection::connect(&admin_url).await.ok()?;
                conn.execute(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                )))
                .await
                .ok()
            })
        });
        let _ = dropper.join();
    }
}
