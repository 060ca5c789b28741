import pytest

from companion.games.series import PRESETS, Series, SeriesError


def test_presets_of_both_manuals():
    assert (PRESETS["ez-best-of-five"].method, PRESETS["ez-best-of-five"].target) == ("games", 5)
    assert (PRESETS["ez-first-to-21"].method, PRESETS["ez-first-to-21"].target) == ("points", 21)
    assert (PRESETS["quick-best-of-three"].method, PRESETS["quick-best-of-three"].target) == ("games", 3)
    assert (PRESETS["quick-first-to-8"].method, PRESETS["quick-first-to-8"].target) == ("points", 8)


def test_set_number_of_games_most_points_wins():
    series = Series.preset("quick-best-of-three")
    series.add((1, 0), (0,))
    series.add((0, 8), (1,))
    assert not series.over() and series.winners() == ()
    series.add((4, 0), (0,))
    assert series.over() and series.totals() == (5, 8) and series.winners() == (1,)
    with pytest.raises(SeriesError, match="over"):
        series.add((1, 0))


def test_first_to_a_number_of_points():
    series = Series.preset("ez-first-to-21")
    for _ in range(2):
        series.add((8, 0), (0,))
    assert not series.over()
    series.add((0, 4), (1,))
    series.add((8, 0), (0,))
    assert series.over() and series.winners() == (0,)
    exactly = Series.preset("quick-first-to-8")
    exactly.add((8, 0), (0,))  # 8 points is reaching 8
    assert exactly.over() and exactly.winners() == (0,)


def test_set_amount_of_time_a_game_still_running_scores_nothing():
    series = Series(3, "time", 600)
    series.add((2, 0, 0), (0,), ended_at=100)
    series.add((0, 0, 4), (2,), ended_at=650)  # finished after the time was up
    assert series.totals() == (2, 0, 0)
    assert series.over(now=650) and series.winners(now=650) == (0,)
    assert not series.over(now=500)
    # A game that ended when the time was up closes the series: no later game is counted.
    assert not series.accepts()
    with pytest.raises(SeriesError, match="over"):
        series.add((0, 3, 0), (1,), ended_at=700)


def test_a_series_nobody_scored_in_has_no_winner():
    series = Series(2, "games", 2)
    series.add((0, 0))
    series.add((0, 0))
    assert series.over() and series.winners() == ()


def test_a_game_taken_back_leaves_the_series_only_if_it_counted():
    series = Series(2, "games", 2)
    series.add((1, 0), (0,), game=1)
    series.add((0, 2), (1,), game=2)
    assert not series.taken_back(3)  # finished after the series was over: never counted, nothing to take
    assert [g.game for g in series.games] == [1, 2] and series.totals() == (1, 2)
    assert series.taken_back(2)
    assert [g.game for g in series.games] == [1] and not series.over()


def test_a_result_with_the_wrong_number_of_scores_is_refused():
    series = Series(2)
    with pytest.raises(SeriesError, match="expected 2 scores, got 3"):
        series.add((1, 0, 0))
    assert series.games == []


def test_ties_share_and_dict_round_trip():
    series = Series(2, "games", 2)
    series.add((2, 0), (0,))
    series.add((0, 2), (1,))
    assert series.winners() == (0, 1)
    assert Series.from_dict(series.to_dict()) == series


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"players": 2, "method": "darts"}, "method"),
        ({"players": 2, "target": 0}, "target"),
        ({"players": 5}, "2 to 4 players"),
    ],
)
def test_bad_series_settings(kwargs, message):
    with pytest.raises(SeriesError, match=message):
        Series(**kwargs)
