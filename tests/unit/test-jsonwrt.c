// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-jsonwrt.c --- the JSON writer produces exactly the expected text
 */
#include <stdlib.h>
#include <string.h>

#include "jsonwrt.h"
#include "unit.h"

static char *render(int pretty)
{
	struct bp_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	bp_json_init(&j, f, pretty);
	bp_json_open_object(&j, NULL);
	bp_json_string(&j, "path", "/a \"b\"\\\n\x01");
	bp_json_u64(&j, "big", 18446744073709551615ULL);
	bp_json_i64(&j, "neg", -5);
	bp_json_double(&j, "ratio", 0.5);
	bp_json_bool(&j, "ok", 1);
	bp_json_null(&j, "none");
	bp_json_open_array(&j, "empty");
	bp_json_close_array(&j);
	bp_json_open_array(&j, "ranges");
	bp_json_open_object(&j, NULL);
	bp_json_u64(&j, "offset", 0);
	bp_json_close_object(&j);
	bp_json_u64(&j, NULL, 7);
	bp_json_close_array(&j);
	bp_json_close_object(&j);
	bp_json_finish(&j);
	fclose(f);
	return buf;
}

/* finish closes whatever is still open. */
static char *unfinished(void)
{
	struct bp_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	bp_json_init(&j, f, 0);
	bp_json_open_object(&j, NULL);
	bp_json_open_array(&j, "a");
	bp_json_open_object(&j, NULL);
	bp_json_u64(&j, "x", 1);
	bp_json_finish(&j);
	fclose(f);
	return buf;
}

/*
 * Bytes that are not well-formed UTF-8 (0xff; an overlong '/'; a surrogate;
 * a sequence cut short) become U+FFFD, byte by byte, and a member gets a
 * _hex twin with every byte; well-formed UTF-8 (é, an emoji) passes as it is.
 */
static char *not_utf8(void)
{
	struct bp_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	bp_json_init(&j, f, 0);
	bp_json_open_object(&j, NULL);
	bp_json_string(&j, "ok", "/\xc3\xa9\xf0\x9f\x98\x80");
	bp_json_string(&j, "path", "/a\xff\xc0\xaf\xed\xa0\x80\xe2\x82");
	bp_json_open_array(&j, "list");
	bp_json_string(&j, NULL, "\xf5");
	bp_json_close_array(&j);
	bp_json_finish(&j);
	fclose(f);
	return buf;
}

int main(void)
{
	char *bad = not_utf8();
	char *open_ = unfinished();

	char *compact = render(0);
	char *pretty = render(1);

	CHECK(strcmp(compact, "{\"path\":\"/a \\\"b\\\"\\\\\\n\\u0001\",\"big\":18446744073709551615,"
			      "\"neg\":-5,\"ratio\":0.5,\"ok\":true,\"none\":null,\"empty\":[],"
			      "\"ranges\":[{\"offset\":0},7]}\n") == 0);
	CHECK(strstr(pretty, "{\n  \"path\": ") == pretty);
	CHECK(strstr(pretty, "\n  \"ranges\": [\n    {\n      \"offset\": 0\n    },\n    7\n  ]\n}\n"));
	CHECK(strcmp(open_, "{\"a\":[{\"x\":1}]}\n") == 0);
	CHECK(strcmp(bad, "{\"ok\":\"/\xc3\xa9\xf0\x9f\x98\x80\","
			  "\"path\":\"/a\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\","
			  "\"path_hex\":\"2f61ffc0afeda080e282\",\"list\":[\"\\ufffd\"]}\n") == 0);
	free(bad);
	free(open_);
	free(compact);
	free(pretty);
	return unit_exit();
}
